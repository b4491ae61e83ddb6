import type { LoggedCheckpoint, PutCheckpoint, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectBytes, putChain, rejectionOf } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** What a logged checkpoint is, positions aside: instance and seq. */
const keys = (logged: LoggedCheckpoint[]) => logged.map(({ instanceId, seq }) => `${instanceId}@${seq}`);

/** Put these checkpoints one after the other, each committed before the next. */
async function putInTurn(repository: Repository, ...checkpoints: PutCheckpoint[]): Promise<void> {
  for (const next of checkpoints) await repository.put(next);
}

/** `Repository#history`: the store's checkpoints in the order it committed them, read on from a position. */
export function describeHistory<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'history.ts');

  describe('Repository#history', () => {
    test('TH-HISTORY-01', async (repository) => {
      const a1 = checkpoint('order-a', 1);
      const b1 = checkpoint('order-b', 1, { bytes: new Uint8Array([0, 255, 7]) });
      const a2 = checkpoint('order-a', 2);
      await putInTurn(repository, a1, b1, a2);
      await repository.putWrites('order-a', 2, [{ taskId: 'task', index: 0, value: new Uint8Array([1]) }]);

      const logged = await repository.history();

      expect(keys(logged)).toEqual(['order-a@1', 'order-b@1', 'order-a@2']);
      for (const [index, put] of [a1, b1, a2].entries()) {
        const entry = logged[index]!;
        expect(entry).toMatchObject({
          instanceId: put.instanceId,
          seq: put.seq,
          parentSeq: put.parentSeq,
          schema: put.schema,
          definitionDigest: put.definitionDigest,
          digest: put.digest,
        });
        expectBytes(entry.bytes, put.bytes);
        expect(typeof entry.position).toBe('string');
        expect(entry).not.toHaveProperty('writes');
      }
    });

    test('TH-HISTORY-02', async (repository) => {
      await putInTurn(repository, checkpoint('order-a', 1), checkpoint('order-b', 1));
      const [, second] = await repository.history();

      await putInTurn(repository, checkpoint('order-a', 2), checkpoint('order-c', 1));
      const rest = await repository.history({ after: second!.position });

      expect(keys(rest)).toEqual(['order-a@2', 'order-c@1']);
      const all = await repository.history();
      expect(new Set(all.map(({ position }) => position)).size).toBe(4);
      expect(await repository.history({ after: rest[1]!.position })).toEqual([]);
    });

    test('TH-HISTORY-03', async (repository) => {
      await putInTurn(repository, checkpoint('order-a', 1), checkpoint('order-b', 1), checkpoint('order-a', 2));
      await putInTurn(repository, checkpoint('order-b', 2), checkpoint('order-a', 3));
      const all = await repository.history();

      expect(keys(await repository.history({ instanceId: 'order-a' }))).toEqual([
        'order-a@1',
        'order-a@2',
        'order-a@3',
      ]);
      // After order-b@1's position: order-a's checkpoints put later.
      const after = all[1]!.position;
      expect(keys(await repository.history({ instanceId: 'order-a', after }))).toEqual(['order-a@2', 'order-a@3']);
      expect(keys(await repository.history({ instanceId: 'order-b', after }))).toEqual(['order-b@2']);
    });

    test('TH-HISTORY-04', async (repository) => {
      await putChain(repository, 'order-a', 4);

      expect(keys(await repository.history({ limit: 2 }))).toEqual(['order-a@1', 'order-a@2']);
      expect(await repository.history({ limit: 0 })).toEqual([]);
      const [first] = await repository.history({ limit: 1 });
      expect(keys(await repository.history({ after: first!.position, limit: 2 }))).toEqual(['order-a@2', 'order-a@3']);
    });

    test('TH-HISTORY-05', async (repository) => {
      await putChain(repository, 'order-a', 2);

      for (const after of ['', 'not a position', '-1', '1.5', ' 1', 12 as unknown as string]) {
        expect(await rejectionOf(repository.history({ after }))).toBeInstanceOf(RangeError);
      }
      for (const limit of [-1, 1.5, Number.NaN]) {
        expect(await rejectionOf(repository.history({ limit }))).toBeInstanceOf(RangeError);
      }
      expect(await repository.history({ instanceId: 'missing' })).toEqual([]);
      expect(await repository.history({ instanceId: 'bad\u0000id' })).toEqual([]);
    });

    test('TH-HISTORY-06', async (repository) => {
      await putChain(repository, 'order-a', 3);
      await putChain(repository, 'order-b', 1);
      await repository.prune('order-a', { keepLast: 1 });
      expect(keys(await repository.history())).toEqual(['order-a@3', 'order-b@1']);

      // order-b holds the newest position; deleted, its position is not handed out again.
      const [, newest] = await repository.history();
      await repository.delete('order-b');
      expect(keys(await repository.history())).toEqual(['order-a@3']);
      await repository.put(checkpoint('order-c', 1));

      expect(keys(await repository.history({ after: newest!.position }))).toEqual(['order-c@1']);
    });

    test('TH-HISTORY-07', async (repository) => {
      await putChain(repository, 'order-a', 2);
      await putChain(repository, 'order-b', 1);
      const before = await repository.history();

      await repository.copy('order-a', 'order-z');

      const copied = await repository.history({ after: before[2]!.position });
      expect(keys(copied)).toEqual(['order-z@1', 'order-z@2']);
      expectBytes(copied[1]!.bytes, before[1]!.bytes);
      expect(keys(await repository.history({ instanceId: 'order-a' }))).toEqual(['order-a@1', 'order-a@2']);
    });

    test('TH-HISTORY-08', async (repository, store) => {
      await putChain(repository, 'order-a', 2);
      const [, last] = await repository.history();
      await repository.close();

      const reopened = await store.reopen();
      await reopened.put(checkpoint('order-b', 1));

      expect(keys(await reopened.history({ after: last!.position }))).toEqual(['order-b@1']);
    });

    test('TH-HISTORY-09', async (repository, store) => {
      const other = await store.connect();
      await repository.put(checkpoint('order-a', 1));
      await other.put(checkpoint('order-b', 1));
      await repository.put(checkpoint('order-a', 2));

      expect(keys(await other.history())).toEqual(['order-a@1', 'order-b@1', 'order-a@2']);
      const [first] = await repository.history();
      expect(keys(await repository.history({ after: first!.position }))).toEqual(['order-b@1', 'order-a@2']);
    });
  });
}
