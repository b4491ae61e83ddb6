import { describe, expect } from 'vitest';
import type { Repository } from '../repository.js';
import { checkpoint, contractTest, expectConflict, expectStored, putChain, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#delete`: an instance goes with all its checkpoints and writes. */
export function describeDelete<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer);

  describe('Repository#delete', () => {
    test('should remove every checkpoint and write of an instance', async (repository) => {
      await putChain(repository, 'order-1', 3);
      await repository.putWrites('order-1', 2, [write('charge', 0, 'paid')]);

      await repository.delete('order-1');

      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.get('order-1', 2)).toBeUndefined();
      expect(await repository.list('order-1')).toEqual([]);
      expect(await repository.instances()).toEqual([]);
      await expectConflict(repository.putWrites('order-1', 2, [write('charge', 1, 'late')]), 'order-1', 2);
    });

    test('should leave other instances untouched', async (repository) => {
      await putChain(repository, 'order-1', 2);
      const [, kept] = await putChain(repository, 'order-2', 2);
      await repository.putWrites('order-2', 2, [write('charge', 0, 'paid')]);

      await repository.delete('order-1');

      expectStored(await repository.get('order-2'), kept!, [write('charge', 0, 'paid')]);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['order-2']);
    });

    test('should be a no-op for an instance that does not exist', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);

      await repository.delete('missing');

      expectStored(await repository.get('order-1'), first!);
    });

    test('should leave deployments untouched', async (repository) => {
      const deployment = await repository.putDeployment({
        definitionId: 'order-fulfilment',
        digest: 'model-digest-1',
        xml: '<definitions/>',
        deployedAt: 1_700_000_000_000,
      });
      await putChain(repository, 'order-1', 1);

      await repository.delete('order-1');

      expect(await repository.deployments()).toEqual([deployment]);
    });

    test('should let a deleted instance id start again from parentSeq null', async (repository) => {
      await putChain(repository, 'order-1', 3);
      await repository.delete('order-1');
      const restart = checkpoint('order-1', 1, { note: 'second life' });

      await repository.put(restart);

      expectStored(await repository.get('order-1'), restart);
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1]);
    });
  });
}
