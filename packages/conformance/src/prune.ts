import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectConflict,
  expectStored,
  putChain,
  putChainWithWrites,
  rejectionOf,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

/** `Repository#prune`: keep an instance's latest checkpoints, drop older ones with their entries. */
export function describePrune<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'prune.ts');

  describe('Repository#prune', () => {
    test('TH-PRUNE-01', async (repository) => {
      const writes = Object.fromEntries([2, 4, 5].map((seq) => [seq, [write('task', 0, `at ${seq}`)]]));
      const chain = await putChainWithWrites(repository, 'order-1', 5, writes);

      await repository.prune('order-1', { keepLast: 2 });

      const listed = await repository.list('order-1');
      expect(seqs(listed)).toEqual([4, 5]);
      expectStored(listed[0], chain[3]!, [write('task', 0, 'at 4')]);
      expectStored(listed[1], chain[4]!, [write('task', 0, 'at 5')]);
    });

    test('TH-PRUNE-02', async (repository) => {
      await putChain(repository, 'order-1', 3);

      for (const keepLast of [0, -1, 1.5, Number.NaN]) {
        expect(await rejectionOf(repository.prune('order-1', { keepLast }))).toBeInstanceOf(RangeError);
      }

      expect(seqs(await repository.list('order-1'))).toEqual([1, 2, 3]);
    });

    test('TH-PRUNE-03', async (repository) => {
      await putChain(repository, 'order-1', 4, { meta: { businessKey: 'A-1', dueAt: 9 } });
      const summary = await repository.instances();

      await repository.prune('order-1', { keepLast: 1 });

      expect(await repository.instances()).toEqual(summary);
      expect(summary[0]?.latestSeq).toBe(4);
    });

    test('TH-PRUNE-04', async (repository) => {
      await putChain(repository, 'order-1', 3);
      await repository.prune('order-1', { keepLast: 1 });
      const fourth = checkpoint('order-1', 4);

      await repository.put(fourth);

      expectStored(await repository.get('order-1'), fourth);
      expect(seqs(await repository.list('order-1'))).toEqual([3, 4]);
      expect((await repository.get('order-1', 3))?.parentSeq).toBe(2);
    });

    test('TH-PRUNE-05', async (repository) => {
      await putChain(repository, 'order-1', 3);
      await repository.claim({ owner: 'node-b', ttlMs: 60_000, now: 0, limit: 1 });

      await repository.prune('order-1', { keepLast: 1 });

      expect(seqs(await repository.list('order-1'))).toEqual([3]);
    });

    test('TH-PRUNE-06', async (repository) => {
      await putChain(repository, 'order-1', 3);

      await repository.prune('order-1', { keepLast: 2 });

      expect(await repository.get('order-1', 1)).toBeUndefined();
      await expectConflict(repository.putWrites('order-1', 1, [write('task', 0, 'late')]), 'order-1', 1);
    });
  });
}
