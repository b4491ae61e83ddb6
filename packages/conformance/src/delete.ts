import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectConflict,
  expectLeaseLost,
  expectStored,
  putChain,
  putChainWithWrites,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#delete`: an instance goes with all its checkpoints and writes. */
export function describeDelete<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'delete.ts');

  describe('Repository#delete', () => {
    test('TH-DELETE-01', async (repository) => {
      await putChainWithWrites(repository, 'order-1', 3, { 2: [write('charge', 0, 'paid')] });

      await repository.delete('order-1');

      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.get('order-1', 2)).toBeUndefined();
      expect(await repository.list('order-1')).toEqual([]);
      expect(await repository.instances()).toEqual([]);
      await expectConflict(repository.putWrites('order-1', 2, [write('charge', 1, 'late')]), 'order-1', 2);
    });

    test('TH-DELETE-02', async (repository) => {
      await putChain(repository, 'order-1', 2);
      const [, kept] = await putChain(repository, 'order-2', 2);
      await repository.putWrites('order-2', 2, [write('charge', 0, 'paid')]);

      await repository.delete('order-1');

      expectStored(await repository.get('order-2'), kept!, [write('charge', 0, 'paid')]);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['order-2']);
    });

    test('TH-DELETE-03', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);

      await repository.delete('missing');

      expectStored(await repository.get('order-1'), first!);
    });

    test('TH-DELETE-04', async (repository) => {
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

    test('TH-DELETE-05', async (repository) => {
      await putChain(repository, 'order-1', 3);
      await repository.delete('order-1');
      const restart = checkpoint('order-1', 1, { note: 'second life' });

      await repository.put(restart);

      expectStored(await repository.get('order-1'), restart);
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1]);
    });

    test('TH-DELETE-06', async (repository) => {
      await putChain(repository, 'order-1', 1, {
        meta: { dueAt: 1_000, subscriptions: [{ name: 'payment', key: 'order-1' }] },
      });
      const [lease] = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 1 });

      await repository.delete('order-1');

      expect(await repository.dueTimers(2_000, 10)).toEqual([]);
      expect(await repository.subscriptions('payment', 'order-1')).toEqual([]);
      await expectLeaseLost(repository.renew(lease!, 60_000, 1), 'order-1', 'node-a', lease!.token);
      // Written again, the instance is unleased: an unfenced put is accepted and a claim takes it afresh.
      await repository.put(checkpoint('order-1', 1));
      const [again] = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 1, limit: 1 });
      expect(again?.token).toBeGreaterThan(lease!.token);
    });
  });
}
