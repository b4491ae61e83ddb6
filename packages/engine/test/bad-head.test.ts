/**
 * A head that cannot be opened never strands an instance: a tampered schema column, a truncated journal
 * entry or a corrupt document is named (instance, seq, entry) by `recover()` and by reading the instance,
 * the other instances go on, and `rollback` writes the last good checkpoint's state again as the head —
 * refusing where that would forget what the instance durably did.
 */
import {
  CorruptCheckpointError,
  CURRENT_SCHEMA,
  createMemoryRepository,
  encodeJournalEntry,
  type JournalEntry,
  openCheckpoint,
  type Repository,
  type StoredCheckpoint,
} from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { EngineErrorCode, RollbackRefusedError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { wrap } from './fixtures/repository.js';

const PAY = `<bpmn:serviceTask id="pay">${ext('<zeebe:taskDefinition type="pay" />')}</bpmn:serviceTask>`;
const MODEL = bpmn(`<bpmn:startEvent id="start" />${PAY}<bpmn:endEvent id="end" />${chain('start', 'pay', 'end')}`);

/** A repository whose reads pass through `tamper` (a store row edited behind the engine's back). */
function tampered(inner: Repository, tamper: (stored: StoredCheckpoint) => StoredCheckpoint): Repository {
  return wrap(inner, {
    get: async (instanceId, seq) => {
      const stored = await inner.get(instanceId, seq);
      return stored && tamper(stored);
    },
    getMany: async (instanceIds) => (await inner.getMany(instanceIds)).map(tamper),
  });
}

/** start → `check` (done at once) → `pay`: two good checkpoints before the wait. */
const TWO_STEPS = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:serviceTask id="check">${ext('<zeebe:taskDefinition type="check" />')}</bpmn:serviceTask>${PAY}<bpmn:endEvent id="end" />${chain('start', 'check', 'pay', 'end')}`,
);

/** Two instances left waiting on their `pay` job by an engine that then stopped. */
async function twoWaiting(repository: Repository, model = MODEL): Promise<[string, string]> {
  let paying = 0;
  let bothPaying = () => {};
  const reached = new Promise<void>((resolve) => {
    bothPaying = resolve;
  });
  const pay = () => {
    if (++paying === 2) bothPaying();
    return new Promise<never>(() => {});
  };
  const engine = new Engine({ repository, handlers: { check: () => ({}), pay } });
  await engine.deploy(model);
  const ids: [string, string] = [await engine.start('p'), await engine.start('p')];
  await reached;
  await engine.close();
  // Closed with their jobs in flight, their leases were left to lapse; the damage below is done by hand, as
  // an operator or a disk would, not through a lease: let them go first.
  for (const id of ids) {
    const lease = await repository.lease(id);
    if (lease) await repository.release(lease);
  }
  return ids;
}

/** The id of the job an instance's head waits on. */
async function waitingJob(repository: Repository, instanceId: string): Promise<string> {
  const stored = (await repository.get(instanceId))!;
  const job = openCheckpoint(stored.bytes, { instanceId }).body.jobs[0];
  return job!.id;
}

/** Puts a head whose bytes are not a document on top of the instance's chain. */
async function putCorruptHead(repository: Repository, instanceId: string): Promise<number> {
  const head = (await repository.get(instanceId))!;
  const summary = (await repository.instances()).find((instance) => instance.instanceId === instanceId)!;
  const { instanceId: _, latestSeq: __, definitionDigest: ___, ...meta } = summary;
  await repository.put({
    instanceId,
    seq: head.seq + 1,
    parentSeq: head.seq,
    schema: head.schema,
    definitionDigest: head.definitionDigest,
    digest: 'not-a-digest',
    bytes: new TextEncoder().encode('{"schema":3,"instanceId":'),
    meta,
  });
  return head.seq + 1;
}

describe('what a store row says is checked against the document', () => {
  it('a schema column that disagrees with the document is corruption, named; the other instance is restored', async () => {
    const inner = createMemoryRepository();
    const [bad, good] = await twoWaiting(inner);
    const repository = tampered(inner, (stored) => (stored.instanceId === bad ? { ...stored, schema: 1 } : stored));
    const engine = new Engine({ repository, handlers: { pay: () => ({}) } });
    const report = await engine.recover();
    expect(report.restored).toEqual([good]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.error).toBeInstanceOf(CorruptCheckpointError);
    expect(report.failed[0]?.error.message).toMatch(
      new RegExp(
        `instance ${bad} at seq \\d+ is corrupt: the store's schema column says 1, but the document is schema ${CURRENT_SCHEMA}`,
      ),
    );
    await expect(engine.instance(bad)).rejects.toBeInstanceOf(CorruptCheckpointError);
    await engine.close();
  });

  it('a truncated journal entry is corruption naming the instance, the seq and the entry, not a SyntaxError', async () => {
    const repository = createMemoryRepository();
    const [bad, good] = await twoWaiting(repository);
    const head = (await repository.get(bad))!;
    const entry = encodeJournalEntry({
      jobId: await waitingJob(repository, bad),
      result: { paid: true },
    } as unknown as JournalEntry);
    await repository.putWrites(bad, head.seq, [{ taskId: 'job-result', index: 0, value: entry.slice(0, 10) }]);
    const engine = new Engine({ repository, handlers: { pay: () => ({}) } });
    const report = await engine.recover();
    expect(report.restored).toEqual([good]);
    const error = report.failed[0]?.error;
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect(error?.message).toContain(
      `instance ${bad} at seq ${head.seq} is corrupt: journal entry "job-result" #0 is not a readable document`,
    );
    await engine.close();
  });
});

describe('rollback to the last good checkpoint', () => {
  it('writes the good state again as the head, carrying its journal, and the instance then runs on', async () => {
    const repository = createMemoryRepository();
    const [id] = await twoWaiting(repository);
    const good = (await repository.get(id))!.seq;
    const jobId = await waitingJob(repository, id);
    const entry = encodeJournalEntry({ jobId, result: { paid: true } } as unknown as JournalEntry);
    await repository.putWrites(id, good, [{ taskId: 'job-result', index: 0, value: entry }]);
    // A tool seals a broken head on top; the journal of `good` is what the instance durably did since.
    const bad = await putCorruptHead(repository, id);
    const engine = new Engine({ repository, handlers: { pay: () => ({ paid: 'twice' }) } });
    const before = await engine.recover({ instanceIds: [id] });
    expect(before.failed[0]?.error.message).toContain(`at seq ${bad} is corrupt`);

    const result = await engine.rollback(id, { to: good });
    expect(result).toEqual({ instanceId: id, from: bad, to: good, seq: bad + 1 });
    expect((await repository.get(id))?.writes).toHaveLength(1);
    const after = await engine.recover({ instanceIds: [id] });
    expect(after.restored).toEqual([id]);
    const settled = await engine.settled(id);
    expect(settled.status).toBe('completed');
    // The journaled result was applied; the handler did not run again.
    expect((await engine.instance(id))?.variables).toMatchObject({ paid: true });
    await engine.close();
  });

  it('is refused when a later checkpoint opens: what it recorded would be forgotten', async () => {
    const repository = createMemoryRepository();
    const [id] = await twoWaiting(repository, TWO_STEPS);
    const all = await repository.list(id);
    expect(all.length).toBeGreaterThan(1);
    const older = all[0]!.seq;
    await putCorruptHead(repository, id);
    const engine = new Engine({ repository });
    const refusal = engine.rollback(id, { to: older });
    await expect(refusal).rejects.toBeInstanceOf(RollbackRefusedError);
    await expect(refusal).rejects.toMatchObject({ code: EngineErrorCode.RollbackRefused });
    await expect(refusal).rejects.toThrow(/checkpoint \d+ after it opens/);
    await engine.close();
  });

  it('is refused when an unreadable checkpoint after it holds journal entries', async () => {
    const repository = createMemoryRepository();
    const [id] = await twoWaiting(repository);
    const good = (await repository.get(id))!.seq;
    const bad = await putCorruptHead(repository, id);
    await repository.putWrites(id, bad, [{ taskId: 'job-result', index: 0, value: new Uint8Array([123]) }]);
    const engine = new Engine({ repository });
    await expect(engine.rollback(id, { to: good })).rejects.toThrow(
      `checkpoint ${bad} holds 1 journal entries (results of completed steps) that would be forgotten`,
    );
    await engine.close();
  });

  it('an interrupted rollback is finished by running it again', async () => {
    const inner = createMemoryRepository();
    const [id] = await twoWaiting(inner);
    const good = (await inner.get(id))!.seq;
    const entry = encodeJournalEntry({
      jobId: await waitingJob(inner, id),
      result: { paid: true },
    } as unknown as JournalEntry);
    await inner.putWrites(id, good, [{ taskId: 'job-result', index: 0, value: entry }]);
    const bad = await putCorruptHead(inner, id);
    let failWrites = true;
    const flaky = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === 'putWrites' && failWrites) {
          return async () => {
            failWrites = false;
            throw new Error('connection lost');
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const engine = new Engine({ repository: flaky });
    await expect(engine.rollback(id, { to: good })).rejects.toThrow('connection lost');
    expect(await engine.rollback(id, { to: good })).toEqual({ instanceId: id, from: bad, to: good, seq: bad + 1 });
    expect((await inner.get(id))?.writes).toHaveLength(1);
    await engine.close();
  });

  it('is refused for a seq at or above the head, and for a checkpoint that does not open either', async () => {
    const repository = createMemoryRepository();
    const [id] = await twoWaiting(repository);
    const bad = await putCorruptHead(repository, id);
    const engine = new Engine({ repository });
    await expect(engine.rollback(id, { to: bad })).rejects.toThrow(/below its head/);
    await putCorruptHead(repository, id);
    await expect(engine.rollback(id, { to: bad })).rejects.toThrow(/does not open either/);
    await engine.close();
  });
});

describe('text no store keeps never reaches a write', () => {
  it('a correlation key past the store limit is an incident on its element, not a refused write', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:receiveTask id="wait" messageRef="m" /><bpmn:endEvent id="end" />${chain('start', 'wait', 'end')}`,
    ).replace(
      '<bpmn:process',
      `<bpmn:message id="m" name="paid">${ext('<zeebe:subscription correlationKey="=key" />')}</bpmn:message><bpmn:process`,
    );
    const engine = new Engine({ repository: createMemoryRepository() });
    await engine.deploy(xml);
    const id = await engine.start('p', { variables: { key: 'k'.repeat(600) } });
    const settled = await engine.settled(id);
    expect(settled.status === 'waiting' && settled.incidents.map((incident) => incident.message)).toEqual([
      expect.stringMatching(/^wait: the correlation key cannot be stored: .*THRESHER_LIMIT_EXCEEDED/),
    ]);
    await engine.close();
  });
});
