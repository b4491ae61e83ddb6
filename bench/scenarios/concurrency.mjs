// Scenario 3 — concurrency: N instances of start → service task → gateway → user task → end started at
// once (all `start` calls issued together), each parking on its user task; then every task completed at
// once. Time to park all, time to complete all, and the child's peak RSS, for Thresher on its memory
// repository and on SQLite (strict), and for bpmn-engine (N engines, executed together, then signalled).
import { parkedModel, peerParkedModel, peerServices, thresherHandlers } from '../lib/models.mjs';
import { ratio } from '../lib/stats.mjs';
import { WARMUP_MS, warmUp } from '../lib/warmup.mjs';

export const id = '3';
export const title = 'Concurrency';

async function thresherRound(engine, count, offset) {
  const startedAt = performance.now();
  const ids = await Promise.all(
    Array.from({ length: count }, (_, i) => engine.start('parked', { variables: { i: offset + i } })),
  );
  const parked = await Promise.all(ids.map((id) => engine.settled(id)));
  const parkMs = performance.now() - startedAt;
  const taskIds = parked.flatMap((state) => {
    if (state.status !== 'waiting' || state.userTasks.length !== 1) throw new Error(`${state.instanceId} did not park`);
    return state.userTasks.map((task) => task.id);
  });
  const rssParked = process.memoryUsage().rss;
  const completeStarted = performance.now();
  await Promise.all(taskIds.map((taskId) => engine.completeUserTask(taskId, { approved: true })));
  const ended = await Promise.all(ids.map((id) => engine.settled(id)));
  const completeMs = performance.now() - completeStarted;
  if (ended.some((state) => state.status !== 'completed')) throw new Error('an instance did not complete');
  return { parkMs, completeMs, rssParked };
}

async function peerRound(sourceContext, count, offset) {
  const { parkPeerInstance } = await import('../lib/peer.mjs');
  const startedAt = performance.now();
  const parked = await Promise.all(
    Array.from({ length: count }, (_, i) => parkPeerInstance(sourceContext, peerServices, { i: offset + i })),
  );
  const parkMs = performance.now() - startedAt;
  if (parked.some((p) => !p.parked)) throw new Error('a bpmn-engine instance did not park');
  const rssParked = process.memoryUsage().rss;
  const completeStarted = performance.now();
  await Promise.all(
    parked.map(({ engine, execution }) => {
      const ended = engine.waitFor('end');
      execution.signal({ id: 'approve' });
      return ended;
    }),
  );
  const completeMs = performance.now() - completeStarted;
  return { parkMs, completeMs, rssParked };
}

export const tasks = {
  /**
   * Rounds of `n` on `store`. A durable store is measured beside a memory repository in the same child
   * (`againstMemory`): both warm up, then their rounds alternate, the order swapped every round, and the
   * child's ratio is its durable median over its memory median. This machine's speed moves by a third from
   * process to process, which a ratio of two children's medians carried whole.
   */
  async thresher({ store, n, warmup, warmupMs, rounds = 1, againstMemory = false }, { section }) {
    const { Engine, forgetInstances, openStore } = await import('../lib/thresher.mjs');
    const sides = [{ opened: await openStore(store), done: [] }];
    if (againstMemory) sides.push({ opened: await openStore('memory'), done: [] });
    try {
      for (const side of sides) {
        side.engine = new Engine({ repository: side.opened.repository, handlers: thresherHandlers });
        await side.engine.deploy(parkedModel);
        // A memory repository keeps every checkpoint: each warm-up round's are deleted after it, so neither the
        // measured round's collections nor the peak RSS carry them.
        await warmUp(
          async (count, offset) => {
            await thresherRound(side.engine, count, offset);
            await forgetInstances(side.opened.repository);
          },
          { min: warmup, ms: warmupMs / sides.length, size: warmup },
        );
      }
      // Several rounds, the median one kept: one round of a few hundred ms moved by 1.5× from run to run.
      await section(async () => {
        for (let r = 0; r < rounds; r++) {
          for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
            if (r > 0) await forgetInstances(side.opened.repository);
            side.done.push(await thresherRound(side.engine, n, r * n));
          }
        }
      });
      for (const side of sides) {
        await side.engine.close();
        await side.opened.repository.close();
      }
      const [measured, memory] = sides.map((side) => medianRound(side.done));
      const total = (round) => round.parkMs + round.completeMs;
      return {
        n,
        rounds,
        parkMs: measured.parkMs,
        completeMs: measured.completeMs,
        rssParkedBytes: Math.max(...sides[0].done.map((one) => one.rssParked)),
        measuredMs: total(measured),
        ...(memory
          ? {
              memoryParkMs: memory.parkMs,
              memoryCompleteMs: memory.completeMs,
              overMemory: total(measured) / total(memory),
            }
          : {}),
      };
    } finally {
      for (const side of sides) await side.opened.dispose();
    }
  },

  async peer({ n, warmup, warmupMs }, { section }) {
    const { compilePeer } = await import('../lib/peer.mjs');
    const sourceContext = await compilePeer(peerParkedModel);
    await warmUp((count, offset) => peerRound(sourceContext, count, offset), {
      min: warmup,
      ms: warmupMs,
      size: warmup,
    });
    const round = await section(() => peerRound(sourceContext, n, 0));
    return {
      n,
      parkMs: round.parkMs,
      completeMs: round.completeMs,
      rssParkedBytes: round.rssParked,
      measuredMs: round.parkMs + round.completeMs,
    };
  },
};

/** The round whose whole time (park + complete) is the median of `rounds`' (the lower middle of an even count). */
function medianRound(rounds) {
  const sorted = [...rounds].sort((a, b) => a.parkMs + a.completeMs - (b.parkMs + b.completeMs));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

export function plan(quick) {
  return quick
    ? { n: 100, warmup: 10, warmupMs: 0, rounds: 1 }
    : { n: 1000, warmup: 50, warmupMs: WARMUP_MS, rounds: 5 };
}

export async function run(ctx) {
  const { n, warmup, warmupMs, rounds } = plan(ctx.quick);
  const withPg = Boolean(process.env.THRESHER_PG_URL);
  const sized = { n, warmup, warmupMs, rounds };
  const paired = { ...sized, againstMemory: true };
  const { memory, sqlite, postgres, peer } = await ctx.measure({
    memory: { scenario: 'concurrency', task: 'thresher', options: { store: 'memory', ...sized } },
    sqlite: { scenario: 'concurrency', task: 'thresher', options: { store: 'sqlite', ...paired } },
    ...(withPg
      ? { postgres: { scenario: 'concurrency', task: 'thresher', options: { store: 'postgres', ...paired } } }
      : {}),
    peer: { scenario: 'concurrency', task: 'peer', options: { n, warmup, warmupMs }, side: 'peer' },
  });
  const total = (result) => result.parkMs + result.completeMs;
  /** The whole round on a durable store ÷ on memory: what durability costs under load. */
  const againstMemory = (store, result, most, extra) => ({
    scenario: title,
    measure: `${count} started at once, until all completed: ${store} (strict) ÷ memory`,
    thresher: { value: total(result), unit: 'ms' },
    peer: {
      value: result.memoryParkMs + result.memoryCompleteMs,
      unit: 'ms',
      what: 'Thresher on its memory repository, same processes',
    },
    ratio: result.overMemory,
    target: { text: `≤ ${most}×`, holds: (r) => r <= most },
    note: `${store} ${phases(result.parkMs, result.completeMs)}, memory ${phases(result.memoryParkMs, result.memoryCompleteMs)}: each the median of ${rounds} rounds in a process, the two stores' rounds alternating in it; the ratio is the median of the processes' ratios${extra}`,
  });
  const phases = (parkMs, completeMs) =>
    `park ${Math.round(parkMs).toLocaleString('en-US')} ms + complete ${Math.round(completeMs).toLocaleString('en-US')} ms`;
  const peerName = `bpmn-engine ${ctx.shared.peerVersion}`;
  const sequential = ctx.shared.peerInMemory;
  const count = n.toLocaleString('en-US');
  return [
    {
      scenario: title,
      measure: `time to park ${count} started at once (memory)`,
      thresher: { value: memory.parkMs, unit: 'ms' },
      peer: { value: peer.parkMs, unit: 'ms', what: `${peerName}, ${count} at once` },
      ratio: ratio(memory.parkMs, peer.parkMs),
    },
    {
      scenario: title,
      measure: `time to complete all ${count} (memory)`,
      thresher: { value: memory.completeMs, unit: 'ms' },
      peer: { value: peer.completeMs, unit: 'ms', what: `${peerName}, ${count} at once` },
      ratio: ratio(memory.completeMs, peer.completeMs),
    },
    againstMemory(
      'SQLite',
      sqlite,
      1.5,
      `; checkpoint writes arriving together commit in one transaction (group commit)`,
    ),
    withPg
      ? againstMemory('PostgreSQL', postgres, 1.5, '')
      : {
          scenario: title,
          measure: `${count} started at once, until all completed: PostgreSQL (strict) ÷ memory`,
          thresher: { text: 'skipped: THRESHER_PG_URL is not set' },
        },
    {
      scenario: title,
      measure: `peak RSS, ${count} parked at once (memory) vs peer at ${sequential?.n?.toLocaleString('en-US')} sequential`,
      thresher: { value: memory.peakRssBytes, unit: 'bytes' },
      peer: {
        value: sequential?.peakRssBytes,
        unit: 'bytes',
        what: `${peerName}, ${sequential?.n?.toLocaleString('en-US')} sequential (scenario 1)`,
      },
      ratio: ratio(memory.peakRssBytes, sequential?.peakRssBytes),
      target: { text: '≤ 1×', holds: (r) => r <= 1 },
      note: `RSS with all ${count} parked: Thresher ${Math.round(memory.rssParkedBytes / 2 ** 20)} MiB, bpmn-engine (${count} parked at once) ${Math.round(peer.rssParkedBytes / 2 ** 20)} MiB, peak ${Math.round(peer.peakRssBytes / 2 ** 20).toLocaleString('en-US')} MiB`,
    },
  ];
}
