import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { contractTest, expectStored, putChain, putChainWithWrites, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#list`: an instance's checkpoints, oldest first, with `before` and `limit`. */
export function describeList<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'list.ts');
  const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

  describe('Repository#list', () => {
    test('TH-LIST-01', async (repository) => {
      expect(await repository.list('missing')).toEqual([]);
    });

    test('TH-LIST-02', async (repository) => {
      const chain = await putChainWithWrites(repository, 'order-1', 3, {
        1: [write('charge', 0, 'one')],
        3: [write('ship', 0, 'three'), write('ship', 1, 'three again')],
      });

      const listed = await repository.list('order-1');

      expect(seqs(listed)).toEqual([1, 2, 3]);
      expectStored(listed[0], chain[0]!, [write('charge', 0, 'one')]);
      expectStored(listed[1], chain[1]!, []);
      expectStored(listed[2], chain[2]!, [write('ship', 0, 'three'), write('ship', 1, 'three again')]);
    });

    test('TH-LIST-03', async (repository) => {
      await putChain(repository, 'order-1', 5);

      expect(seqs(await repository.list('order-1', { before: 4 }))).toEqual([1, 2, 3]);
      expect(seqs(await repository.list('order-1', { before: 1 }))).toEqual([]);
      expect(seqs(await repository.list('order-1', { before: 99 }))).toEqual([1, 2, 3, 4, 5]);
    });

    test('TH-LIST-04', async (repository) => {
      await putChain(repository, 'order-1', 5);

      expect(seqs(await repository.list('order-1', { limit: 2 }))).toEqual([1, 2]);
      expect(seqs(await repository.list('order-1', { limit: 10 }))).toEqual([1, 2, 3, 4, 5]);
      expect(await repository.list('order-1', { limit: 0 })).toEqual([]);
    });

    test('TH-LIST-05', async (repository) => {
      await putChain(repository, 'order-1', 5);

      expect(seqs(await repository.list('order-1', { before: 5, limit: 2 }))).toEqual([1, 2]);
    });

    test('TH-LIST-06', async (repository) => {
      await putChain(repository, 'order-1', 2);
      await putChain(repository, 'order-10', 3);

      const listed = await repository.list('order-1');

      expect(listed.map(({ instanceId, seq }) => `${instanceId}@${seq}`)).toEqual(['order-1@1', 'order-1@2']);
    });
  });
}
