import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectStored,
  putChain,
  putChainWithWrites,
  rejectionOf,
  write,
} from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

/** Reference PRUNE: `prune(instanceId, { keepLast })`, one instance per call; delete-all is `delete`. */
export function describeReferencePrune<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/prune.ts');

  describe('PRUNE', () => {
    test('PRUNE-01', async (repository) => {
      const chain = await putChain(repository, 'thread-1', 4);

      await repository.prune('thread-1', { keepLast: 1 });

      const listed = await repository.list('thread-1');
      expect(seqs(listed)).toEqual([4]);
      expectStored(listed[0], chain[3]!);
    });

    test('PRUNE-02', async (repository) => {
      await putChain(repository, 'thread-1', 3);
      await putChain(repository, 'thread-2', 2);

      for (const thread of ['thread-1', 'thread-2']) await repository.prune(thread, { keepLast: 1 });

      expect(seqs(await repository.list('thread-1'))).toEqual([3]);
      expect(seqs(await repository.list('thread-2'))).toEqual([2]);
    });

    test('PRUNE-03', async (repository) => {
      await putChain(repository, 'root-1', 3);
      await putChain(repository, 'child-1', 2, { meta: { parentId: 'root-1', callNodeId: 'call_1' } });

      for (const instance of ['root-1', 'child-1']) await repository.prune(instance, { keepLast: 1 });

      expect(seqs(await repository.list('root-1'))).toEqual([3]);
      expect(seqs(await repository.list('child-1'))).toEqual([2]);
    });

    test('PRUNE-04', async (repository) => {
      const [, , third] = await putChain(repository, 'thread-1', 3);
      await repository.putWrites('thread-1', 3, [write('task-1', 0, 'kept')]);

      await repository.prune('thread-1', { keepLast: 1 });

      expectStored(await repository.get('thread-1'), third!, [write('task-1', 0, 'kept')]);
    });

    test('PRUNE-05', async (repository) => {
      await putChain(repository, 'thread-1', 3);

      expect(await rejectionOf(repository.prune('thread-1', { keepLast: 0 }))).toBeInstanceOf(RangeError);
      expect(await repository.list('thread-1')).toHaveLength(3);
      await repository.delete('thread-1');

      expect(await repository.list('thread-1')).toEqual([]);
    });

    test('PRUNE-06', async (repository) => {
      await putChain(repository, 'thread-1', 3);
      const chain = await putChain(repository, 'thread-2', 3);

      await repository.prune('thread-1', { keepLast: 1 });

      const listed = await repository.list('thread-2');
      expect(seqs(listed)).toEqual([1, 2, 3]);
      chain.forEach((stored, i) => {
        expectStored(listed[i], stored);
      });
    });

    test('PRUNE-07', async (repository) => {
      await putChainWithWrites(repository, 'thread-1', 2, { 1: [write('task-1', 0, 'kept')] });

      await repository.prune('thread-1', { keepLast: 5 });

      expect(seqs(await repository.list('thread-1'))).toEqual([1, 2]);
      expect((await repository.get('thread-1', 1))?.writes).toHaveLength(1);
    });

    test('PRUNE-08', async (repository) => {
      await repository.put(checkpoint('thread-1', 1));

      await expect(repository.prune('thread-unknown', { keepLast: 1 })).resolves.toBeUndefined();

      expect(await repository.list('thread-unknown')).toEqual([]);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['thread-1']);
    });
  });
}
