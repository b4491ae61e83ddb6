import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectBytes,
  expectConflict,
  logged,
  putChainWithWrites,
  rejectionOf,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

/** An instance that ended at `endedAt`: seq 1 running, seq 2 ended. */
async function putEnded(repository: Repository, instanceId: string, endedAt: number, parentId?: string) {
  const link = parentId === undefined ? {} : { parentId, callNodeId: 'call' };
  await repository.put(logged(instanceId, 1, { meta: link }));
  await repository.put(logged(instanceId, 2, { meta: { ...link, status: 'completed', endedAt } }));
}

const ids = async (repository: Repository) => (await repository.instances()).map(({ instanceId }) => instanceId);

/**
 * Retention: a put that prunes as it goes (`keepLast`), the ended instances `expire` deletes, and the readers of
 * the log that keep what they have not read.
 */
export function describeRetention<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'retention.ts');

  describe('Repository retention', () => {
    test('TH-RETAIN-01', async (repository) => {
      const writes = Object.fromEntries([3, 4].map((seq) => [seq, [write('task', 0, `at ${seq}`)]]));
      await putChainWithWrites(repository, 'order-1', 4, writes, { log: 'entry' });
      const summary = await repository.instances();

      await repository.put(logged('order-1', 5, { keepLast: 2 }));

      const listed = await repository.list('order-1');
      expect(seqs(listed)).toEqual([4, 5]);
      expect(listed[0]!.writes).toHaveLength(1);
      expect(seqs(await repository.history({ instanceId: 'order-1' }))).toEqual([1, 2, 3, 4, 5]);
      expect(await repository.get('order-1', 3)).toBeUndefined();
      expect((await repository.instances())[0]).toEqual({ ...summary[0], latestSeq: 5 });
      await repository.put(checkpoint('order-1', 6, { keepLast: 10 }));
      expect(seqs(await repository.list('order-1'))).toEqual([4, 5, 6]);
    });

    test('TH-RETAIN-02', async (repository) => {
      await repository.put(checkpoint('order-1', 1));

      for (const keepLast of [0, -1, 1.5, Number.NaN, '2' as unknown as number]) {
        expect(await rejectionOf(repository.put(checkpoint('order-1', 2, { keepLast })))).toBeInstanceOf(RangeError);
      }

      expect(seqs(await repository.list('order-1'))).toEqual([1]);
    });

    test('TH-RETAIN-03', async (repository) => {
      await repository.put(checkpoint('order-1', 1));
      const [lease] = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 1_000, limit: 1 });
      const fence = { owner: lease!.owner, token: lease!.token };
      for (let seq = 2; seq <= 6; seq++)
        await repository.put({ ...checkpoint('order-1', seq, { keepLast: 3 }), fence });

      const kept = await repository.list('order-1');
      expect(seqs(kept)).toEqual([4, 5, 6]);
      // The oldest kept checkpoint is whole: what a rollback to it writes again as the head.
      const target = await repository.get('order-1', 4);
      expectBytes(target!.bytes, checkpoint('order-1', 4).bytes);
      await repository.put({ ...checkpoint('order-1', 7, { bytes: target!.bytes, keepLast: 3 }), fence });
      expect(seqs(await repository.list('order-1'))).toEqual([5, 6, 7]);
      expect((await repository.lease('order-1'))?.token).toBe(lease!.token);
    });

    test('TH-RETAIN-04', async (repository) => {
      await putChainWithWrites(repository, 'order-1', 3, {});
      await repository.put(checkpoint('order-1', 3, { keepLast: 1 }));
      await expectConflict(repository.put(checkpoint('order-1', 5, { parentSeq: 2, keepLast: 1 })), 'order-1', 5);

      expect(seqs(await repository.list('order-1'))).toEqual([1, 2, 3]);
    });

    test('TH-RETAIN-05', async (repository) => {
      await repository.put(checkpoint('order-a', 1));
      await putEnded(repository, 'order-b', 1_700_000_000_123.5);

      const [a, b] = await repository.instances();

      expect(a!.endedAt).toBeNull();
      expect(b!.endedAt).toBe(1_700_000_000_123.5);
    });

    test('TH-RETAIN-06', async (repository) => {
      await putEnded(repository, 'order-c', 300);
      await putEnded(repository, 'order-a', 100);
      await putEnded(repository, 'order-b', 100);
      await putEnded(repository, 'order-d', 500);
      await repository.put(checkpoint('order-e', 1));
      await repository.put(checkpoint('order-f', 1, { meta: { status: 'terminated' } }));

      expect(await repository.expire({ endedBefore: 300, limit: 2 })).toEqual(['order-a', 'order-b']);
      expect(await repository.expire({ endedBefore: 300, limit: 10 })).toEqual(['order-c']);
      expect(await repository.expire({ endedBefore: 400, limit: 10 })).toEqual([]);

      expect(await ids(repository)).toEqual(['order-d', 'order-e', 'order-f']);
      expect(await repository.get('order-a')).toBeUndefined();
      expect(await repository.history({ instanceId: 'order-a' })).toEqual([]);
      expect(seqs(await repository.history())).toEqual([1, 2]);
    });

    test('TH-RETAIN-07', async (repository) => {
      await putEnded(repository, 'order-free', 100);
      // Ended while holding its lease, as an engine that ended it and died before delivering what the end owes.
      await repository.put(logged('order-leased', 1));
      const [lease] = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 1 });
      const ended = { status: 'completed', endedAt: 100 } as const;
      const fence = { owner: lease!.owner, token: lease!.token };
      await repository.put({ ...logged('order-leased', 2, { meta: ended }), fence });
      await putEnded(repository, 'order-parent', 100);
      const child = { parentId: 'order-parent', callNodeId: 'call' };
      await repository.put(checkpoint('order-child', 1, { meta: child }));

      expect(await repository.expire({ endedBefore: 1_000, limit: 10 })).toEqual(['order-free']);

      await repository.release(lease!);
      await repository.put(checkpoint('order-child', 2, { meta: { ...child, status: 'terminated', endedAt: 900 } }));
      expect(await repository.expire({ endedBefore: 1_000, limit: 10 })).toEqual([
        'order-leased',
        'order-parent',
        'order-child',
      ]);
      expect(await ids(repository)).toEqual([]);
    });

    test('TH-RETAIN-08', async (repository) => {
      await repository.put(logged('order-a', 1));
      const [entry] = await repository.history();

      await repository.putReader({ name: 'billing', position: null, cursor: null });
      await repository.putReader({ name: 'audit ✓', position: entry!.position, cursor: 'event 3' });
      await repository.putReader({ name: 'billing', position: entry!.position, cursor: null });

      expect(await repository.readers()).toEqual([
        { name: 'audit ✓', position: entry!.position, cursor: 'event 3' },
        { name: 'billing', position: entry!.position, cursor: null },
      ]);
      expect(await repository.deleteReader('billing')).toBe(true);
      expect(await repository.deleteReader('billing')).toBe(false);
      expect((await repository.readers()).map(({ name }) => name)).toEqual(['audit ✓']);
    });

    test('TH-RETAIN-09', async (repository) => {
      await repository.put(logged('order-a', 1));

      for (const position of ['', 'not a position', '-1', ' 1']) {
        const refusal = await rejectionOf(repository.putReader({ name: 'r', position, cursor: null }));
        expect(refusal).toBeInstanceOf(RangeError);
      }
      expect(await rejectionOf(repository.putReader({ name: 'a\u0000b', position: null, cursor: null }))).toMatchObject(
        {
          code: 'THRESHER_UNENCODABLE_VALUE',
        },
      );
      for (const options of [
        { endedBefore: Number.NaN, limit: 1 },
        { endedBefore: Number.POSITIVE_INFINITY, limit: 1 },
        { endedBefore: 1, limit: 0 },
        { endedBefore: 1, limit: 1.5 },
      ]) {
        expect(await rejectionOf(repository.expire(options))).toBeInstanceOf(RangeError);
      }
      expect(await repository.readers()).toEqual([]);
    });

    test('TH-RETAIN-10', async (repository) => {
      await putEnded(repository, 'order-a', 100);
      await putEnded(repository, 'order-b', 100);
      await repository.putReader({ name: 'billing', position: null, cursor: null });

      expect(await repository.expire({ endedBefore: 1_000, limit: 10 })).toEqual([]);

      // billing has read order-a's entries whole, audit order-b's first too: order-a goes, order-b stays.
      const entries = await repository.history();
      await repository.putReader({ name: 'billing', position: entries[1]!.position, cursor: null });
      await repository.putReader({ name: 'audit', position: entries[2]!.position, cursor: null });
      expect(await repository.expire({ endedBefore: 1_000, limit: 10 })).toEqual(['order-a']);

      await repository.deleteReader('billing');
      expect(await repository.expire({ endedBefore: 1_000, limit: 10 })).toEqual([]);
      await repository.putReader({ name: 'audit', position: entries[3]!.position, cursor: null });
      expect(await repository.expire({ endedBefore: 1_000, limit: 10 })).toEqual(['order-b']);
    });

    test('TH-RETAIN-11', async (repository, store) => {
      await repository.put(logged('order-a', 1));
      const [entry] = await repository.history();
      await repository.putReader({ name: 'billing', position: entry!.position, cursor: 'c' });
      await repository.close();

      const reopened = await store.reopen();

      expect(await reopened.readers()).toEqual([{ name: 'billing', position: entry!.position, cursor: 'c' }]);
    });
  });
}
