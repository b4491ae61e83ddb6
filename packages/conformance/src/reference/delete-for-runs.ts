import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectStored, putChain, putChainWithWrites, write } from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

const ids = (summaries: { instanceId: string }[]) => summaries.map(({ instanceId }) => instanceId);

/** Reference DELETE_FOR_RUNS: a run is an instance, so deleting runs is `delete`, one call per run. */
export function describeReferenceDeleteForRuns<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/delete-for-runs.ts');

  describe('DELETE_FOR_RUNS', () => {
    test('DELETE_FOR_RUNS-01', async (repository) => {
      await putChain(repository, 'run-1', 1);
      const [kept] = await putChain(repository, 'run-2', 1);

      await repository.delete('run-1');

      expect(await repository.get('run-1')).toBeUndefined();
      expectStored(await repository.get('run-2'), kept!);
    });

    test('DELETE_FOR_RUNS-02', async (repository) => {
      for (const run of ['run-1', 'run-2', 'run-3']) await putChain(repository, run, 2);

      for (const run of ['run-1', 'run-2']) await repository.delete(run);

      expect(ids(await repository.instances())).toEqual(['run-3']);
      expect(await repository.list('run-3')).toHaveLength(2);
    });

    test('DELETE_FOR_RUNS-03', async (repository) => {
      await putChain(repository, 'run-1', 1);
      const chain = await putChainWithWrites(repository, 'run-2', 2, { 1: [write('task-1', 0, 'kept')] });

      await repository.delete('run-1');

      const listed = await repository.list('run-2');
      expectStored(listed[0], chain[0]!, [write('task-1', 0, 'kept')]);
      expectStored(listed[1], chain[1]!);
    });

    test('DELETE_FOR_RUNS-04', async (repository) => {
      await putChain(repository, 'run-1', 1);
      await repository.putWrites('run-1', 1, [write('task-1', 0, 'gone')]);

      await repository.delete('run-1');

      expect(await repository.get('run-1', 1)).toBeUndefined();
      expect(await repository.list('run-1')).toEqual([]);
    });

    test('DELETE_FOR_RUNS-05', async (repository) => {
      const [first] = await putChain(repository, 'run-1', 1);

      await expect(repository.delete('')).resolves.toBeUndefined();

      expectStored(await repository.get('run-1'), first!);
      expect(ids(await repository.instances())).toEqual(['run-1']);
    });

    test('DELETE_FOR_RUNS-06', async (repository) => {
      const [first] = await putChain(repository, 'run-1', 1);

      await expect(repository.delete('run-unknown')).resolves.toBeUndefined();

      expectStored(await repository.get('run-1'), first!);
    });

    test('DELETE_FOR_RUNS-07', async (repository) => {
      await repository.put(checkpoint('run-1', 1));
      await repository.put(checkpoint('run-1-child-a', 1, { meta: { parentId: 'run-1', callNodeId: 'a' } }));
      await repository.put(checkpoint('run-1-child-b', 1, { meta: { parentId: 'run-1', callNodeId: 'b' } }));
      await putChain(repository, 'run-2', 1);

      for (const run of ['run-1', 'run-1-child-a', 'run-1-child-b']) await repository.delete(run);

      expect(ids(await repository.instances())).toEqual(['run-2']);
      expect(await repository.instances({ parentId: 'run-1' })).toEqual([]);
    });
  });
}
