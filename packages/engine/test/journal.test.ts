import {
  type CheckpointDocument,
  createMemoryRepository,
  decodeJournalEntry,
  encodeJournalEntry,
  openCheckpoint,
  type Repository,
  resultReceipt,
  StaleReceiptError,
  sealCheckpoint,
} from '@thresher/checkpoint';
import { executeFixture, type Fixture, KillSwitch } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { RestoreError } from '../src/common/errors.js';
import { InstanceState } from '../src/core/step/state.js';
import { Engine } from '../src/engine.js';
import type { Handler, Handlers } from '../src/index.js';
import { compile } from '../src/model/index.js';
import { checkJournal, unpackBody } from '../src/runtime/document/capture.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { tamperedReads, wrap } from './fixtures/repository.js';

const task = (id: string) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${id}" />`)}</bpmn:serviceTask>`;
/**
 * `a` and `b` in parallel, then `c`. Their results come in together: the loop applies `a`'s at once, in the
 * checkpoint that records it, and journals `b`'s while `a`'s step is under way (a result with nothing
 * ahead of it in the loop is never journaled: its checkpoint is the next write).
 */
const threeSteps = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:parallelGateway id="split" />${task('a')}${task('b')}<bpmn:parallelGateway id="join" />${task('c')}<bpmn:endEvent id="end" />
  ${chain('start', 'split', 'a', 'join', 'c', 'end')}${chain('split', 'b', 'join')}`,
);
/** The same process id, changed: `b` is gone. */
const twoSteps = bpmn(
  `<bpmn:startEvent id="start" />${task('a')}${task('c')}<bpmn:endEvent id="end" />${chain('start', 'a', 'c', 'end')}`,
);

const handlers: Handlers = {
  a: (job) => ({ a: job.variables.n }),
  b: (job) => ({ b: (job.variables.n as number) + 1 }),
  c: (job) => ({ c: (job.variables.b as number) * 10 }),
};
/** The three-step model as a fixture: no moves, killed wherever the test says. */
const fixture: Fixture = {
  file: 'three-steps.fixture.yaml',
  name: 'three service tasks',
  models: [{ path: 'three-steps.bpmn', xml: threeSteps, dmn: false }],
  process: 'p',
  start: { variables: { n: 1 }, businessKey: null },
  handlers: {
    a: { fail: 0, failMessage: '', delayMs: 0, result: { a: 1 }, bpmnError: null },
    b: { fail: 0, failMessage: '', delayMs: 0, result: { b: 2 }, bpmnError: null },
    c: { fail: 0, failMessage: '', delayMs: 0, result: { c: 20 }, bpmnError: null },
  },
  elementHandlers: {},
  handlersModule: null,
  moves: [],
  via: 'engine',
  kill: { kind: 'every' },
  seed: null,
  endEvents: ['end'],
  expect: {
    at: 'expect',
    status: 'completed',
    variables: null,
    exactVariables: false,
    handlerRuns: {},
    children: null,
    incidents: null,
    ended: null,
    history: null,
    elementRuns: {},
    userTasks: null,
    tasks: null,
    active: null,
    waits: null,
  },
};

/** Validate the journal filed against every stored checkpoint of an instance, as a restore would. */
async function validateStoredJournals(repository: Repository, instanceId: string): Promise<number> {
  const process = (await compile(threeSteps)).processes.get('p')!;
  let entries = 0;
  for (const stored of await repository.list(instanceId)) {
    const document = openCheckpoint(stored.bytes, { instanceId, seq: stored.seq });
    const journal = stored.writes.map((write) => decodeJournalEntry(write.value));
    checkJournal(process, new InstanceState(unpackBody(document.body)), journal);
    entries += journal.length;
  }
  return entries;
}

/** Run the scenario and stop it right after the journal write of step `element`'s result. */
async function killedAfterJournalOf(element: string): Promise<{ repository: Repository; instanceId: string }> {
  for (let killAt = 1; ; killAt++) {
    const repository = createMemoryRepository();
    const store = new KillSwitch(repository, killAt);
    const engine = new Engine({ repository: store, handlers, backoff: () => 0 });
    await engine.deploy(threeSteps);
    void engine.start('p', { variables: { n: 1 } }).catch(() => {});
    await store.killed;
    const [summary] = await repository.instances();
    const stored = await repository.get(summary!.instanceId);
    const journaled = stored!.writes.map((write) => decodeJournalEntry(write.value).jobId);
    const document = openCheckpoint(stored!.bytes, { instanceId: summary!.instanceId });
    if (journaled.some((jobId) => document.body.jobs.find((job) => job.id === jobId)?.nodeId === element)) {
      return { repository, instanceId: summary!.instanceId };
    }
    if (killAt > 50) throw new Error(`no journal write for ${element}`);
  }
}

/** Re-seal a stored checkpoint with a changed body, as a writer with a valid digest would have. */
function resealed(bytes: Uint8Array, instanceId: string, change: (document: CheckpointDocument) => void): Uint8Array {
  const document = openCheckpoint(bytes, { instanceId });
  change(document);
  const { digest: _, schema: __, ...unsealed } = document;
  return sealCheckpoint(unsealed).bytes;
}

describe('the journal under kills', () => {
  it('should run each completed step once and keep every receipt valid, from a kill at every persist point', async () => {
    const baseline = await executeFixture(fixture, null);
    expect(baseline.end.variables).toEqual({ n: 1, a: 1, b: 2, c: 20 });
    expect(baseline.end.handlerRuns).toEqual({ a: 1, b: 1, c: 1 });
    for (let killAt = 1; killAt <= baseline.persistPoints; killAt++) {
      let journaled = 0;
      const killed = await executeFixture(fixture, killAt, {
        inspect: async (repository, instanceId) => {
          journaled = await validateStoredJournals(repository, instanceId);
        },
      });
      // each (invocation, attempt) ran once, or twice only when it was in flight at the kill
      expect({ killAt, end: killed.end, violations: killed.violations }).toEqual({
        killAt,
        end: baseline.end,
        violations: [],
      });
      expect(journaled).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('a journal that does not fit is refused', () => {
  it('should refuse a tampered journal row with StaleReceiptError naming the step, and run nothing', async () => {
    const { repository, instanceId } = await killedAfterJournalOf('b');
    const forged = wrap(repository, {
      ...tamperedReads(repository, instanceId, (stored) => ({
        ...stored,
        writes: stored.writes.map((write) => {
          const entry = decodeJournalEntry(write.value);
          return { ...write, value: encodeJournalEntry({ ...entry, result: { b: 999 } }) };
        }),
      })),
    });
    const calls: string[] = [];
    const b: Handler = () => {
      calls.push('b');
      return {};
    };
    const engine = new Engine({ repository: forged, handlers: { b } });
    const report = await engine.recover();
    expect(report.failed).toHaveLength(1);
    const error = report.failed[0]!.error as StaleReceiptError;
    expect(error).toBeInstanceOf(StaleReceiptError);
    expect(error.code).toBe('THRESHER_STALE_RECEIPT');
    expect(error.nodeId).toBe('b');
    expect(error.message).toContain('does not match its receipt');
    expect(calls).toEqual([]);
  });

  it('should refuse a receipt issued for another invocation', async () => {
    const { repository, instanceId } = await killedAfterJournalOf('b');
    const reused = wrap(repository, {
      ...tamperedReads(repository, instanceId, (stored) => ({
        ...stored,
        writes: stored.writes.map((write) => {
          const entry = decodeJournalEntry(write.value);
          return {
            ...write,
            value: encodeJournalEntry({ ...entry, receipt: resultReceipt('f'.repeat(64), entry.result) }),
          };
        }),
      })),
    });
    const report = await new Engine({ repository: reused, handlers }).recover();
    expect(report.failed[0]!.error).toBeInstanceOf(StaleReceiptError);
    expect(report.failed[0]!.error.message).toContain('another invocation');
  });

  it('should refuse a receipt whose identity is no longer what the step position and inputs derive', async () => {
    const { repository, instanceId } = await killedAfterJournalOf('b');
    // the job's track claims another activation of `b`: the stored identity no longer derives from it
    const moved = wrap(repository, {
      ...tamperedReads(repository, instanceId, (stored) => ({
        ...stored,
        bytes: resealed(stored.bytes, instanceId, (document) => {
          for (const track of document.body.tracks) if (typeof track !== 'string') track.attempt += 1;
        }),
      })),
    });
    const report = await new Engine({ repository: moved, handlers }).recover();
    expect(report.failed[0]!.error).toBeInstanceOf(StaleReceiptError);
    expect(report.failed[0]!.error.message).toContain('what the pinned definition and its inputs derive');
  });

  it('should apply a legacy journal entry that has no receipt', async () => {
    const { repository, instanceId } = await killedAfterJournalOf('b');
    const legacy = wrap(repository, {
      ...tamperedReads(repository, instanceId, (stored) => ({
        ...stored,
        writes: stored.writes.map((write) => {
          const { receipt: _, ...entry } = decodeJournalEntry(write.value);
          return { ...write, value: encodeJournalEntry(entry as never) };
        }),
      })),
    });
    const calls: string[] = [];
    const engine = new Engine({
      repository: legacy,
      handlers: Object.fromEntries(
        Object.entries(handlers).map(([type, handler]): [string, Handler] => [
          type,
          (job) => {
            calls.push(type);
            return handler(job);
          },
        ]),
      ),
    });
    expect((await engine.recover()).failed).toEqual([]);
    expect((await engine.settled(instanceId)).status).toBe('completed');
    expect(calls).toEqual(['c']);
  });
});

describe('an instance is pinned to its definition', () => {
  it('should resume on the definition it started on after a changed model is deployed', async () => {
    const { repository, instanceId } = await killedAfterJournalOf('b');
    const engine = new Engine({ repository, handlers });
    const changed = await engine.deploy(twoSteps);
    expect(changed.version).toBe(2);
    await engine.recover();
    const view = await engine.instance(instanceId);
    expect((await engine.settled(instanceId)).status).toBe('completed');
    expect((await engine.instance(instanceId))?.history.map((entry) => entry.node)).toContain('b');
    expect(view?.version).toBe(1);
  });

  it('should refuse to resume on a changed model when its own definition is not deployed', async () => {
    const { repository, instanceId } = await killedAfterJournalOf('b');
    const original = (await repository.deployments())[0]!;
    await new Engine({ repository, handlers }).deploy(twoSteps);
    const withoutOriginal = wrap(repository, {
      getDeployment: async (digest) => (digest === original.digest ? undefined : repository.getDeployment(digest)),
    });
    const report = await new Engine({ repository: withoutOriginal, handlers }).recover();
    expect(report.failed.map((failure) => failure.instanceId)).toEqual([instanceId]);
    const error = report.failed[0]!.error;
    expect(error).toBeInstanceOf(RestoreError);
    expect(error.message).toContain('version 1');
    expect(error.message).toMatch(/deployed: .*version 2/);
  });
});
