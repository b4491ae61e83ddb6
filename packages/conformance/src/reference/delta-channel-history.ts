import type { PutCheckpoint, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectWrites, putChain, putChainWithWrites, utf8, write } from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

/** A checkpoint whose document is `state` as JSON. */
function withState(instanceId: string, seq: number, state: unknown): PutCheckpoint {
  return checkpoint(instanceId, seq, { bytes: utf8(JSON.stringify(state)), note: JSON.stringify(state) });
}

const stateOf = (stored: { bytes: Uint8Array } | undefined): unknown =>
  JSON.parse(new TextDecoder().decode(stored!.bytes));
const texts = (entries: { value: Uint8Array }[]) => entries.map(({ value }) => new TextDecoder().decode(value));

/**
 * Reference DELTA_CHANNEL_HISTORY: documents are whole states, so the history is `list`; the nearest
 * snapshot is the parent itself, and entries stay with the checkpoint they were filed against.
 */
export function describeReferenceDeltaChannelHistory<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/delta-channel-history.ts');

  describe('DELTA_CHANNEL_HISTORY', () => {
    test('DELTA_CHANNEL_HISTORY-01', async (repository) => {
      // Task ids that sort against the seqs: the history is in seq order, not task id order.
      const taskIds = ['d', 'b', 'c', 'a'];
      const writes = Object.fromEntries(taskIds.map((taskId, i) => [i + 1, [write(taskId, 0, String(i + 1))]]));
      await putChainWithWrites(repository, 'thread-1', 5, writes);

      const history = await repository.list('thread-1', { before: 5 });

      expect(history.flatMap(({ writes }) => texts(writes))).toEqual(['1', '2', '3', '4']);
    });

    test('DELTA_CHANNEL_HISTORY-02', async (repository) => {
      for (let seq = 1; seq <= 6; seq++) await repository.put(withState('thread-1', seq, { ch: seq }));

      const latest = await repository.get('thread-1');
      const parent = await repository.get('thread-1', latest!.parentSeq!);

      expect(latest?.parentSeq).toBe(5);
      expect(stateOf(parent)).toEqual({ ch: 5 });
    });

    test('DELTA_CHANNEL_HISTORY-03', async (repository) => {
      await putChainWithWrites(repository, 'thread-1', 3, {
        2: [write('task', 0, 'before')],
        3: [write('task', 0, 'extra')],
      });

      const history = await repository.list('thread-1', { before: 3 });

      expect(history.flatMap(({ writes }) => texts(writes))).toEqual(['before']);
    });

    test('DELTA_CHANNEL_HISTORY-04', async (repository) => {
      await repository.put(withState('thread-1', 1, { a: 1 }));
      await repository.put(withState('thread-1', 2, { a: 2, b: 2 }));
      await repository.put(withState('thread-1', 3, { a: 3, b: 3 }));

      expect((await repository.list('thread-1')).map(stateOf)).toEqual([{ a: 1 }, { a: 2, b: 2 }, { a: 3, b: 3 }]);
    });

    test('DELTA_CHANNEL_HISTORY-05', async (repository) => {
      await putChain(repository, 'thread-1', 3);

      expect(await repository.list('thread-1', { before: 1 })).toEqual([]);
      expect(await repository.list('thread-1', { limit: 0 })).toEqual([]);
    });

    test('DELTA_CHANNEL_HISTORY-06', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      const walked: number[] = [];
      let next: number | null = (await repository.get('thread-1'))!.seq;
      while (next !== null) {
        walked.push(next);
        next = (await repository.get('thread-1', next))!.parentSeq;
      }

      expect(walked).toEqual([4, 3, 2, 1]);
    });

    test('DELTA_CHANNEL_HISTORY-07', async (repository) => {
      await repository.put(withState('thread-1', 1, [10, 20, 30]));
      await repository.put(withState('thread-1', 2, { ch: [10, 20, 30, 40] }));

      expect(stateOf(await repository.get('thread-1', 1))).toEqual([10, 20, 30]);
      expect(stateOf(await repository.get('thread-1', 2))).toEqual({ ch: [10, 20, 30, 40] });
    });

    test('DELTA_CHANNEL_HISTORY-08', async (repository) => {
      await repository.put(withState('thread-1', 1, [10]));
      await repository.putWrites('thread-1', 1, [write('task', 0, 'at-seed')]);
      await repository.put(withState('thread-1', 2, [10, 20]));
      await repository.putWrites('thread-1', 2, [write('task', 0, 'after-seed')]);
      await repository.put(withState('thread-1', 3, [10, 20, 30]));

      const history = await repository.list('thread-1', { before: 3 });

      expect(history.map(stateOf)).toEqual([[10], [10, 20]]);
      expect(history.flatMap(({ writes }) => texts(writes))).toEqual(['at-seed', 'after-seed']);
    });

    test('DELTA_CHANNEL_HISTORY-09', async (repository) => {
      const parallel = [write('~3:node-c', 0, 'c'), write('~1:node-a', 0, 'a'), write('~2:node-b', 0, 'b')];
      await putChainWithWrites(repository, 'thread-1', 2, { 1: parallel, 2: [write('~0:node-z', 0, 'z')] });

      const history = await repository.list('thread-1');

      expectWrites(history[0]!.writes, parallel);
      expect(history.flatMap(({ writes }) => texts(writes))).toEqual(['c', 'a', 'b', 'z']);
    });

    test('DELTA_CHANNEL_HISTORY-10', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      const entries = [write('~input', 0, 'input'), write('node-a', 0, 'a'), write('node-b', 0, 'b')];

      await repository.putWrites('thread-1', 1, entries.slice(0, 1));
      await repository.putWrites('thread-1', 1, entries.slice(1));

      expectWrites((await repository.list('thread-1'))[0]!.writes, entries);
    });
  });
}
