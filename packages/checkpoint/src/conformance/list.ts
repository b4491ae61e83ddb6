import { describe, expect } from 'vitest';
import type { Repository } from '../repository.js';
import { contractTest, expectStored, putChain, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#list`: an instance's checkpoints, oldest first, with `before` and `limit`. */
export function describeList<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer);
  const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

  describe('Repository#list', () => {
    test('should return an empty list for an instance with no checkpoints', async (repository) => {
      expect(await repository.list('missing')).toEqual([]);
    });

    test('should list checkpoints oldest first, each with its own writes', async (repository) => {
      const chain = await putChain(repository, 'order-1', 3);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'one')]);
      await repository.putWrites('order-1', 3, [write('ship', 0, 'three'), write('ship', 1, 'three again')]);

      const listed = await repository.list('order-1');

      expect(seqs(listed)).toEqual([1, 2, 3]);
      expectStored(listed[0], chain[0]!, [write('charge', 0, 'one')]);
      expectStored(listed[1], chain[1]!, []);
      expectStored(listed[2], chain[2]!, [write('ship', 0, 'three'), write('ship', 1, 'three again')]);
    });

    test('should list only checkpoints with a seq lower than before', async (repository) => {
      await putChain(repository, 'order-1', 5);

      expect(seqs(await repository.list('order-1', { before: 4 }))).toEqual([1, 2, 3]);
      expect(seqs(await repository.list('order-1', { before: 1 }))).toEqual([]);
      expect(seqs(await repository.list('order-1', { before: 99 }))).toEqual([1, 2, 3, 4, 5]);
    });

    test('should return at most limit checkpoints, the oldest first', async (repository) => {
      await putChain(repository, 'order-1', 5);

      expect(seqs(await repository.list('order-1', { limit: 2 }))).toEqual([1, 2]);
      expect(seqs(await repository.list('order-1', { limit: 10 }))).toEqual([1, 2, 3, 4, 5]);
      expect(await repository.list('order-1', { limit: 0 })).toEqual([]);
    });

    test('should apply before first and then limit', async (repository) => {
      await putChain(repository, 'order-1', 5);

      expect(seqs(await repository.list('order-1', { before: 5, limit: 2 }))).toEqual([1, 2]);
    });

    test("should list only the given instance's checkpoints", async (repository) => {
      await putChain(repository, 'order-1', 2);
      await putChain(repository, 'order-10', 3);

      const listed = await repository.list('order-1');

      expect(listed.map(({ instanceId, seq }) => `${instanceId}@${seq}`)).toEqual(['order-1@1', 'order-1@2']);
    });
  });
}
