import {
  CheckpointErrorCode,
  CorruptCheckpointError,
  CURRENT_SCHEMA,
  createMemoryRepository,
  decodeJournalEntry,
  encodeJournalEntry,
  FutureSchemaError,
  type Repository,
  StaleReceiptError,
} from '@thresher/checkpoint';
import { KillSwitch } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { EngineErrorCode, NotFoundError, RestoreError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { Handlers, Job } from '../src/index.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { tamperedReads, wrap } from './fixtures/repository.js';

/** start → service task `work` → user task `review` → end. */
const workThenReview = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
  <bpmn:userTask id="review" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'work', 'review', 'end')}`);

/**
 * `side` and `work` in parallel, then `review`. Their results come in together, so `work`'s is journaled
 * behind `side`'s step (a result alone is applied at once, by the checkpoint that records it).
 */
const workBesideSide = bpmn(`<bpmn:startEvent id="start" /><bpmn:parallelGateway id="split" />
  <bpmn:serviceTask id="side">${ext('<zeebe:taskDefinition type="side" />')}</bpmn:serviceTask>
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
  <bpmn:parallelGateway id="join" /><bpmn:userTask id="review" /><bpmn:endEvent id="end" />
  ${chain('start', 'split', 'side', 'join', 'review', 'end')}${chain('split', 'work', 'join')}`);

function engineOn(repository: Repository, handlers: Handlers): Engine {
  return new Engine({ repository, handlers, backoff: () => 0 });
}

/** A `work` handler that records its jobs. */
function counting(): { jobs: Job[]; handlers: Handlers } {
  const jobs: Job[] = [];
  return {
    jobs,
    handlers: {
      work: (job) => {
        jobs.push(job);
        return { worked: job.variables.tag ?? true };
      },
      side: () => ({}),
    },
  };
}

/** Parks instances at `review` on a first engine, then closes it. Returns their ids and review task ids. */
async function parked(repository: Repository, tags: string[]): Promise<{ ids: string[]; tasks: string[] }> {
  const first = engineOn(repository, counting().handlers);
  await first.deploy(workThenReview);
  const ids: string[] = [];
  const tasks: string[] = [];
  for (const tag of tags) {
    const id = await first.start('p', { variables: { tag } });
    const settled = await first.settled(id);
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    ids.push(id);
    tasks.push(settled.userTasks[0]!.id);
  }
  await first.close();
  return { ids, tasks };
}

async function completeReview(engine: Engine, instanceId: string): Promise<void> {
  const [task] = await engine.userTasks({ instanceId });
  await engine.completeUserTask(task!.id, { reviewed: true });
}

/** The 1-based write (put, putWrites or a claim) at which the `work` result is journaled in an uninterrupted run. */
async function journalWriteIndex(): Promise<number> {
  const inner = createMemoryRepository();
  const log: string[] = [];
  const repository = wrap(inner, {
    put: (checkpoint) => {
      log.push('put');
      return inner.put(checkpoint);
    },
    putWrites: (instanceId, seq, writes, fence) => {
      log.push(`putWrites ${Object.keys(decodeJournalEntry(writes[0]!.value).result).join()}`);
      return inner.putWrites(instanceId, seq, writes, fence);
    },
    claim: async (options) => {
      const leases = await inner.claim(options);
      if (leases.length > 0) log.push('claim');
      return leases;
    },
  });
  const engine = engineOn(repository, counting().handlers);
  await engine.deploy(workBesideSide);
  const id = await engine.start('p');
  await engine.settled(id);
  await engine.close();
  expect(log.filter((kind) => kind === 'putWrites worked')).toHaveLength(1);
  return log.indexOf('putWrites worked') + 1;
}

/** Runs `workThenReview` on a store killed right after the `work` result reached the journal. */
async function killedAfterJournal(): Promise<{ repository: Repository; instanceId: string; jobs: Job[] }> {
  const killAt = await journalWriteIndex();
  const repository = createMemoryRepository();
  const store = new KillSwitch(repository, killAt);
  const { jobs, handlers } = counting();
  const first = engineOn(store, handlers);
  await first.deploy(workBesideSide);
  const instanceId = await first.start('p', { variables: { tag: 'journaled' } });
  await store.killed; // the first engine is abandoned here, as a crashed process would be
  expect(jobs).toHaveLength(1);
  const stored = await repository.get(instanceId);
  const journaled = stored?.writes.map((write) => Object.keys(decodeJournalEntry(write.value).result).join());
  expect(journaled).toContain('worked');
  return { repository, instanceId, jobs };
}

describe('Engine#recover', () => {
  it('should restore a parked instance on a new engine and complete it', async () => {
    // given an instance parked at a user task by an engine that has closed
    const repository = createMemoryRepository();
    const {
      ids: [id],
    } = await parked(repository, ['a']);

    // when a new engine on the same repository recovers
    const { jobs, handlers } = counting();
    const second = engineOn(repository, handlers);
    const report = await second.recover();

    // then the instance is back and completes
    expect(report).toEqual({ restored: [id], failed: [] });
    await completeReview(second, id!);
    expect((await second.settled(id!)).status).toBe('completed');
    expect((await second.instance(id!))!.variables).toEqual({ tag: 'a', worked: 'a', reviewed: true });
    expect(jobs).toEqual([]);
  });

  it('should report an instance whose stored bytes were tampered with, and restore the others', async () => {
    // given two parked instances, one of whose documents reads back altered
    const repository = createMemoryRepository();
    const {
      ids: [broken, healthy],
    } = await parked(repository, ['tampered', 'healthy']);
    const altered = wrap(repository, {
      ...tamperedReads(repository, broken!, (stored) => {
        const text = new TextDecoder().decode(stored.bytes);
        expect(text).toContain('"tampered"');
        return { ...stored, bytes: new TextEncoder().encode(text.replace('"tampered"', '"tempered"')) };
      }),
    });

    // when a new engine recovers
    const second = engineOn(altered, counting().handlers);
    const report = await second.recover();

    // then the altered one failed as corrupt and the other one goes on to complete
    expect(report.restored).toEqual([healthy]);
    expect(report.failed.map((failure) => failure.instanceId)).toEqual([broken]);
    expect(report.failed[0]!.error).toBeInstanceOf(CorruptCheckpointError);
    expect(report.failed[0]!.error).toMatchObject({ code: CheckpointErrorCode.Corrupt });
    await completeReview(second, healthy!);
    expect((await second.settled(healthy!)).status).toBe('completed');
  });

  it('should refuse a document from a future schema whole, naming it, and restore the others', async () => {
    // given two parked instances, one of whose documents was written by a newer Thresher
    const repository = createMemoryRepository();
    const {
      ids: [newer, healthy],
    } = await parked(repository, ['newer', 'healthy']);
    const future = wrap(repository, {
      ...tamperedReads(repository, newer!, (stored) => {
        const document = JSON.parse(new TextDecoder().decode(stored.bytes)) as Record<string, unknown>;
        const bytes = new TextEncoder().encode(JSON.stringify({ ...document, schema: CURRENT_SCHEMA + 1 }));
        return { ...stored, schema: CURRENT_SCHEMA + 1, bytes };
      }),
    });

    // when a new engine recovers
    const second = engineOn(future, counting().handlers);
    const report = await second.recover();

    // then nothing of the newer document is restored, and the other instance goes on
    expect(report.restored).toEqual([healthy]);
    const error = report.failed[0]!.error as FutureSchemaError;
    expect(error).toBeInstanceOf(FutureSchemaError);
    expect(error).toMatchObject({ instanceId: newer, schema: CURRENT_SCHEMA + 1, supported: CURRENT_SCHEMA });
    expect(error.message).toContain(`supports at most ${CURRENT_SCHEMA}`);
    await expect(second.userTasks({ instanceId: newer! })).rejects.toThrow(FutureSchemaError);
  });

  it('should report an instance whose deployment is missing with RestoreError', async () => {
    // given a parked instance whose deployment the repository no longer has
    const repository = createMemoryRepository();
    const {
      ids: [id],
    } = await parked(repository, ['a']);
    const forgetful = wrap(repository, { getDeployment: async () => undefined });

    // when a new engine recovers
    const report = await engineOn(forgetful, counting().handlers).recover();

    // then it is reported as not restorable
    expect(report.restored).toEqual([]);
    expect(report.failed.map((failure) => failure.instanceId)).toEqual([id]);
    expect(report.failed[0]!.error).toBeInstanceOf(RestoreError);
    expect(report.failed[0]!.error).toMatchObject({ code: EngineErrorCode.Restore });
  });

  it('should report an unknown instance asked for by id', async () => {
    const report = await engineOn(createMemoryRepository(), {}).recover({ instanceIds: ['no-such-instance'] });
    expect(report.restored).toEqual([]);
    expect(report.failed[0]!.error).toBeInstanceOf(NotFoundError);
  });

  it('should refuse a journal entry whose result no longer matches its receipt, without calling the handler', async () => {
    // given a job result journaled before a crash, read back with a forged value
    const { repository, instanceId } = await killedAfterJournal();
    const forged = wrap(repository, {
      ...tamperedReads(repository, instanceId, (stored) => ({
        ...stored,
        writes: stored.writes.map((write) => {
          const entry = decodeJournalEntry(write.value);
          return { ...write, value: encodeJournalEntry({ ...entry, result: { worked: 'forged' } }) };
        }),
      })),
    });

    // when a new engine recovers
    const { jobs, handlers } = counting();
    const report = await engineOn(forged, handlers).recover();

    // then the instance fails closed and nothing ran
    expect(report.restored).toEqual([]);
    expect(report.failed.map((failure) => failure.instanceId)).toEqual([instanceId]);
    expect(report.failed[0]!.error).toBeInstanceOf(StaleReceiptError);
    expect(report.failed[0]!.error.message).toContain('does not match its receipt');
    expect(jobs).toEqual([]);
  });

  it('should apply a job result journaled before a crash without calling the handler again', async () => {
    // given a job result journaled right before the store died
    const { repository, instanceId, jobs } = await killedAfterJournal();

    // when a new engine recovers on the surviving repository
    const second = engineOn(repository, {
      work: (job) => {
        jobs.push(job);
        return { worked: 'again' };
      },
      side: () => ({}),
    });
    const report = await second.recover();

    // then the journaled result was applied and the handler ran only the first time
    expect(report).toEqual({ restored: [instanceId], failed: [] });
    const waiting = await second.settled(instanceId);
    expect(waiting.status).toBe('waiting');
    expect(jobs.filter((job) => job.elementId === 'work')).toHaveLength(1);
    expect((await second.instance(instanceId))!.variables).toEqual({ tag: 'journaled', worked: 'journaled' });
    await completeReview(second, instanceId);
    expect((await second.settled(instanceId)).status).toBe('completed');
  });

  it('should dispatch a job in flight at a crash again under the same idempotency key', async () => {
    // given a first engine whose handler never answers, abandoned
    const repository = createMemoryRepository();
    const firstJobs: Job[] = [];
    const first = engineOn(repository, {
      work: (job) => {
        firstJobs.push(job);
        return new Promise(() => {});
      },
    });
    await first.deploy(workThenReview);
    const id = await first.start('p');
    await first.close();

    // when a new engine recovers
    const { jobs, handlers } = counting();
    const second = engineOn(repository, handlers);
    await second.recover();

    // then the job runs again as the same invocation
    expect((await second.settled(id)).status).toBe('waiting');
    expect(firstJobs).toHaveLength(1);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.idempotencyKey).toBe(firstJobs[0]!.idempotencyKey);
    expect(jobs[0]!.attempt).toBe(1);
  });
});

describe('lazy restore', () => {
  it('should restore an instance not yet loaded when one of its user tasks is completed', async () => {
    // given a parked instance and a new engine that has not recovered
    const repository = createMemoryRepository();
    const {
      ids: [id],
      tasks: [taskId],
    } = await parked(repository, ['lazy']);
    const second = engineOn(repository, counting().handlers);

    // when the task is completed through it
    await second.completeUserTask(taskId!, { reviewed: true });

    // then the instance was loaded and completed
    expect((await second.settled(id!)).status).toBe('completed');
    expect((await second.instance(id!))!.variables).toMatchObject({ reviewed: true });
  });
});
