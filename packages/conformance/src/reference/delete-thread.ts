import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectConflict, expectStored, putChain, write } from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

/** Reference DELETE_THREAD: `delete(instanceId)`. */
export function describeReferenceDeleteThread<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/delete-thread.ts');

  describe('DELETE_THREAD', () => {
    test('DELETE_THREAD-01', async (repository) => {
      await putChain(repository, 'thread-1', 3);

      await repository.delete('thread-1');

      expect(await repository.get('thread-1')).toBeUndefined();
      expect(await repository.list('thread-1')).toEqual([]);
      expect(await repository.instances()).toEqual([]);
    });

    test('DELETE_THREAD-02', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'val')]);

      await repository.delete('thread-1');

      expect(await repository.get('thread-1', 1)).toBeUndefined();
      await expectConflict(repository.putWrites('thread-1', 1, [write('task-1', 1, 'late')]), 'thread-1', 1);
    });

    test('DELETE_THREAD-03', async (repository) => {
      await repository.put(checkpoint('root-1', 1));
      await repository.put(checkpoint('child-1', 1, { meta: { parentId: 'root-1', callNodeId: 'call_1' } }));

      await repository.delete('root-1');
      await repository.delete('child-1');

      expect(await repository.get('root-1')).toBeUndefined();
      expect(await repository.get('child-1')).toBeUndefined();
      expect(await repository.instances()).toEqual([]);
    });

    test('DELETE_THREAD-04', async (repository) => {
      await putChain(repository, 'thread-1', 2);
      const [kept] = await putChain(repository, 'thread-2', 1);
      await repository.putWrites('thread-2', 1, [write('task-1', 0, 'kept')]);

      await repository.delete('thread-1');

      expectStored(await repository.get('thread-2'), kept!, [write('task-1', 0, 'kept')]);
    });

    test('DELETE_THREAD-05', async (repository) => {
      const [first] = await putChain(repository, 'thread-1', 1);

      await expect(repository.delete('thread-unknown')).resolves.toBeUndefined();

      expectStored(await repository.get('thread-1'), first!);
    });
  });
}
