// Scenario 4 — checkpoint: for a parked instance, the size of what is stored, the time to capture it and the
// time to restore it into a fresh engine ready for its next event.
//   Thresher: size = the latest document's bytes (canonical encoding, plus journal entries filed against it);
//   capture = sealCheckpoint of its body (digest + canonical encoding); restore = a fresh Engine on the
//   repository `recover({ instanceIds })` (repository.get, openCheckpoint: digest check + decode, the model
//   compiled from the stored deployment, the loop resumed), "cold"; "warm" deploys (compiles) the model on
//   the fresh engine before the clock starts. openCheckpoint alone is reported in the notes.
//   bpmn-engine: size = JSON of `getState()` (which embeds the serialized definition); capture = getState() +
//   JSON.stringify; restore = JSON.parse + `new Engine().recover(state)` + `resume()` until the user task waits.
// Cases: (a) parked at a user task; (b) a parallel multi-instance user task over an input collection of 1,000
// items, parked with 1,000 open bodies (Thresher only: the model is in its Zeebe dialect), measured beside
// (b′), its former stand-in: a parallel gateway forking 1,000 branches parked on user tasks. (b) and (b′) are
// measured interleaved in one `measure` call, and (b) ÷ (b′) is printed for capture and restore;
// (c) parked at a user task carrying 100 variables of 1 KB.
import {
  bulkVariables,
  forkModel,
  itemsOf,
  multiInstanceModel,
  parkedModel,
  peerParkedModel,
  peerServices,
  thresherHandlers,
} from '../lib/models.mjs';
import { median, ratio } from '../lib/stats.mjs';

export const id = '4';
export const title = 'Checkpoint';

const BRANCHES = 1000;

/** The model, process id, start variables and user tasks to expect, per case and engine. */
function caseOf(name, quick) {
  const branches = quick ? 100 : BRANCHES;
  switch (name) {
    case 'parked':
      return { thresher: parkedModel, peer: peerParkedModel, process: 'parked', variables: { i: 13 }, waiting: 1 };
    case 'fork': {
      const xml = forkModel(branches);
      return { thresher: xml, peer: xml, process: `fork${branches}`, variables: {}, waiting: branches, branches };
    }
    case 'multi':
      // bpmn-engine does not read zeebe:loopCharacteristics: no peer model, so no peer child
      return {
        thresher: multiInstanceModel,
        peer: null,
        process: 'multi',
        variables: { items: itemsOf(branches) },
        waiting: branches,
        branches,
      };
    case 'variables':
      return {
        thresher: parkedModel,
        peer: peerParkedModel,
        process: 'parked',
        variables: { i: 13, ...bulkVariables(100, 1024) },
        waiting: 1,
      };
    default:
      throw new Error(`unknown case ${name}`);
  }
}

/**
 * Restores not timed before the timed ones, on both sides, until at least `RESTORE_WARMUP` ran and
 * `RESTORE_WARMUP_MS` passed (a full run; `--quick` runs only the count): the JIT settles over the first
 * restores of a fresh child. A 1,000-body instance's restores ran 2–5× slower than later ones for its first
 * ~40 (a fixed 10 timed that ramp, and the (b) ÷ (b′) row moved 0.3×–0.66× with it). Wall time, not a count,
 * as in the other scenarios (`warmup.mjs`): each side warms up for as long, whatever its speed.
 */
const RESTORE_WARMUP = 10;
const RESTORE_WARMUP_MS = 1500;

/**
 * `count` timed calls of `fn` (with untimed `setup`/`teardown` around each), after untimed ones: at least
 * `warmup` and for at least `warmupMs`; median ms of one.
 */
async function timed(count, fn, { setup, teardown, warmup = 0, warmupMs = 0 } = {}) {
  const call = async () => {
    const input = setup ? await setup() : undefined;
    const started = performance.now();
    const output = await fn(input);
    const ms = performance.now() - started;
    if (teardown) await teardown(output, input);
    return ms;
  };
  const warmStarted = performance.now();
  for (let i = 0; i < warmup || performance.now() - warmStarted < warmupMs; i++) await call();
  const times = [];
  for (let i = 0; i < count; i++) times.push(await call());
  return median(times);
}

export const tasks = {
  async thresher({ name, quick, captures, restores }, { section }) {
    const { openCheckpoint, sealCheckpoint } = await import('@thresher/checkpoint');
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const spec = caseOf(name, quick);
    const { repository } = await openStore('memory');
    const first = new Engine({ repository, handlers: thresherHandlers });
    await first.deploy(spec.thresher);
    const instanceId = await first.start(spec.process, { variables: spec.variables });
    const state = await first.settled(instanceId);
    if (state.status !== 'waiting' || state.userTasks.length !== spec.waiting) {
      throw new Error(
        `${name}: expected ${spec.waiting} open user tasks, got ${state.status}/${state.userTasks?.length}`,
      );
    }
    await first.close();
    const stored = await repository.get(instanceId);
    const writesBytes = stored.writes.reduce((sum, write) => sum + write.value.byteLength, 0);
    const document = openCheckpoint(stored.bytes, { instanceId, seq: stored.seq });
    const unsealed = {
      instanceId,
      seq: document.seq,
      parentSeq: document.parentSeq,
      definitionDigest: document.definitionDigest,
      capturedAt: document.capturedAt,
      body: document.body,
    };
    if (sealCheckpoint(unsealed).bytes.byteLength !== stored.bytes.byteLength)
      throw new Error('re-sealing changed the size');

    const restore = async ({ warm }) => {
      const engine = new Engine({ repository, handlers: thresherHandlers });
      if (warm) await engine.deploy(spec.thresher);
      return engine;
    };
    const recoverInto = async (engine) => {
      const report = await engine.recover({ instanceIds: [instanceId] });
      if (report.restored.length !== 1) throw report.failed[0]?.error ?? new Error('not restored');
      return engine;
    };
    const ready = async (engine) => {
      const open = await engine.userTasks({ instanceId });
      if (open.length !== spec.waiting) throw new Error(`restored with ${open.length} open user tasks`);
      await engine.close();
    };
    return section(async () => {
      const captureMs = await timed(captures, () => sealCheckpoint(unsealed));
      const openMs = await timed(captures, () => openCheckpoint(stored.bytes, { instanceId, seq: stored.seq }));
      const coldMs = await timed(restores, recoverInto, {
        setup: () => restore({ warm: false }),
        teardown: ready,
        warmup: RESTORE_WARMUP,
        warmupMs: quick ? 0 : RESTORE_WARMUP_MS,
      });
      const warmMs = await timed(restores, recoverInto, { setup: () => restore({ warm: true }), teardown: ready });
      return {
        documentBytes: stored.bytes.byteLength + writesBytes,
        captureMs,
        openMs,
        restoreColdMs: coldMs,
        restoreWarmMs: warmMs,
        measuredMs: captures * (captureMs + openMs) + restores * (coldMs + warmMs),
      };
    });
  },

  async peer({ name, quick, captures, restores }, { section }) {
    const { compilePeer, parkPeerInstance, peerVersion, recoverPeer } = await import('../lib/peer.mjs');
    const spec = caseOf(name, quick);
    if (!spec.peer) throw new Error(`${name}: bpmn-engine has no model for this case`);
    const sourceContext = await compilePeer(spec.peer);
    const { engine, parked, waiting } = await parkPeerInstance(
      sourceContext,
      peerServices,
      spec.variables,
      spec.waiting,
    );
    if (!parked) return { stalled: true, waiting, expected: spec.waiting, peerVersion };
    const state = await engine.getState();
    const json = JSON.stringify(state);
    const sourceBytes = state.definitions.reduce((sum, d) => sum + Buffer.byteLength(d.source ?? ''), 0);
    return section(async () => {
      const captureMs = await timed(captures, async () => JSON.stringify(await engine.getState()));
      const restoreMs = await timed(restores, async () => recoverPeer(JSON.parse(json), peerServices, spec.waiting), {
        warmup: RESTORE_WARMUP,
        warmupMs: quick ? 0 : RESTORE_WARMUP_MS,
        teardown: ({ engine: recovered }) => recovered.stop(),
      });
      return {
        stateBytes: Buffer.byteLength(json),
        sourceBytes,
        captureMs,
        restoreMs,
        peerVersion,
        measuredMs: captures * captureMs + restores * restoreMs,
      };
    });
  },
};

export function plan(quick) {
  const scale = quick ? 0.1 : 1;
  const of = (captures, restores) => ({
    captures: Math.max(5, Math.round(captures * scale)),
    restores: Math.max(3, Math.round(restores * scale)),
  });
  // (b) and (b′) restore in a few ms, close to the noise of this machine: 30 each, so the median holds still.
  return { parked: of(1000, 60), fork: of(40, 30), multi: of(40, 30), variables: of(400, 40) };
}

export async function run(ctx) {
  const sizes = plan(ctx.quick);
  const measured = {};
  const specsOf = (name) => {
    const options = { name, quick: ctx.quick, ...sizes[name] };
    const thresher = { scenario: 'checkpoint', task: 'thresher', options };
    if (!caseOf(name, ctx.quick).peer) return { thresher };
    return { thresher, peer: { scenario: 'checkpoint', task: 'peer', options, side: 'peer' } };
  };
  measured.parked = await ctx.measure(specsOf('parked'));
  // (b′) and (b) interleaved run by run (b′, its peer, b, b′, …), so drift hits both sides of (b) ÷ (b′)
  const pair = await ctx.measure({ ...specsOf('fork'), multi: specsOf('multi').thresher });
  measured.fork = { thresher: pair.thresher, peer: pair.peer };
  measured.multi = { thresher: pair.multi };
  measured.variables = await ctx.measure(specsOf('variables'));
  const peerName = `bpmn-engine ${ctx.shared.peerVersion ?? measured.parked.peer.peerVersion}`;
  const branches = ctx.quick ? 100 : BRANCHES;
  const rowsOf = (label, { thresher, peer }, targets = {}) => {
    const stalled = !peer
      ? { text: `not run: ${peerName} does not read the model's zeebe:loopCharacteristics` }
      : peer.stalled
        ? {
            text: `${peerName} did not park: it stalls with ${peer.waiting.toLocaleString('en-US')} of ${peer.expected.toLocaleString('en-US')} user tasks waiting`,
          }
        : null;
    const restoreNote = `Thresher: new Engine + recover() to ready; the engine finds the model its process compiled from the stored deployment before (compiled models are shared by the engines of a process: the first restore in a fresh process compiles it once); with the model deployed in the engine before the clock starts: ${thresher.restoreWarmMs.toFixed(2)} ms${stalled ? '' : ` (${ratio(thresher.restoreWarmMs, peer.restoreMs).toFixed(3)}× the peer's)`}; openCheckpoint alone: ${thresher.openMs.toFixed(3)} ms`;
    return [
      {
        scenario: title,
        measure: `${label}: document size`,
        thresher: { value: thresher.documentBytes, unit: 'bytes' },
        peer: stalled ?? { value: peer.stateBytes, unit: 'bytes', what: `${peerName} getState() JSON` },
        ratio: stalled ? null : ratio(thresher.documentBytes, peer.stateBytes),
        target: targets.size,
        note: stalled
          ? undefined
          : `bpmn-engine's state embeds its serialized definition (${Math.round(peer.sourceBytes).toLocaleString('en-US')} B of it); Thresher's document names the deployment by digest instead`,
      },
      {
        scenario: title,
        measure: `${label}: capture time`,
        thresher: { value: thresher.captureMs, unit: 'ms' },
        peer: stalled ? null : { value: peer.captureMs, unit: 'ms', what: `${peerName} getState() + JSON.stringify` },
        ratio: stalled ? null : ratio(thresher.captureMs, peer.captureMs),
        note: label.startsWith('(a)')
          ? 'Thresher: sealCheckpoint of the body (canonical encoding, sha256 digest, encoding with the digest)'
          : undefined,
      },
      {
        scenario: title,
        measure: `${label}: restore time, fresh engine (model compiled once per process)`,
        thresher: { value: thresher.restoreColdMs, unit: 'ms' },
        peer: stalled ? null : { value: peer.restoreMs, unit: 'ms', what: `${peerName} JSON.parse + recover + resume` },
        ratio: stalled ? null : ratio(thresher.restoreColdMs, peer.restoreMs),
        target: targets.restore,
        note: restoreNote,
      },
    ];
  };
  return [
    ...rowsOf('(a) parked at a user task', measured.parked, {
      size: { text: '≤ 0.25×', holds: (r) => r <= 0.25 },
      restore: { text: '≤ 0.2×', holds: (r) => r <= 0.2 },
    }),
    ...rowsOf(
      `(b) parallel multi-instance user task over ${branches.toLocaleString('en-US')} items, ${branches.toLocaleString('en-US')} open bodies`,
      measured.multi,
    ),
    ...rowsOf(
      `(b′) former stand-in: parallel gateway fork of ${branches.toLocaleString('en-US')} branches parked on user tasks`,
      measured.fork,
    ),
    ...againstStandIn(measured.multi.thresher, measured.fork.thresher),
    ...rowsOf('(c) 100 variables of 1 KB, parked', measured.variables),
  ];
}

/**
 * (b) ÷ (b′), both Thresher, measured interleaved in the same run: the multi-instance against the gateway
 * fork with as many open user tasks. The peer column holds (b′)'s figure.
 */
function againstStandIn(multi, fork) {
  const standIn = (value) => ({ value, unit: 'ms', what: 'Thresher (b′), same run' });
  const sizeNote = `document size (b) ÷ (b′): ${ratio(multi.documentBytes, fork.documentBytes).toFixed(2)}× (no target)`;
  return [
    {
      scenario: title,
      measure: '(b) ÷ (b′): capture time',
      thresher: { value: multi.captureMs, unit: 'ms' },
      peer: standIn(fork.captureMs),
      ratio: ratio(multi.captureMs, fork.captureMs),
      target: { text: '≤ 1×', holds: (r) => r <= 1 },
      note: sizeNote,
    },
    {
      scenario: title,
      measure: '(b) ÷ (b′): restore time, fresh engine (model compiled once per process)',
      thresher: { value: multi.restoreColdMs, unit: 'ms' },
      peer: standIn(fork.restoreColdMs),
      ratio: ratio(multi.restoreColdMs, fork.restoreColdMs),
      target: { text: '≤ 0.5×', holds: (r) => r <= 0.5 },
      note: `with the model compiled before the clock starts: (b) ${multi.restoreWarmMs.toFixed(2)} ms ÷ (b′) ${fork.restoreWarmMs.toFixed(2)} ms = ${ratio(multi.restoreWarmMs, fork.restoreWarmMs).toFixed(3)}×`,
    },
  ];
}
