import { CheckpointError, type Repository, StoreUpgradedError } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, rejectionOf, utf8, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/**
 * The schema fence: a process keeps a store open while a newer build migrates it. Its writes must stop there,
 * as they could break what the newer schema relies on; what it reads is its own business.
 */
export function describeSchemaFence<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'schema-fence.ts');

  describe('a store migrated by a newer build while open', () => {
    test('TH-SCHEMA-01', async (repository, store) => {
      await repository.put(checkpoint('order-1', 1));
      const [lease] = await repository.claim({ owner: 'node-a', ttlMs: 1000, now: 0, limit: 1 });
      const fence = { owner: 'node-a', token: lease!.token };
      const message = {
        id: 'm-1',
        name: 'paid',
        correlationKey: null,
        variables: utf8('{}'),
        publishedAt: 0,
        expiresAt: 9,
      };

      await store.upgradeSchema();

      const writes: [string, () => Promise<unknown>][] = [
        ['put', () => repository.put({ ...checkpoint('order-1', 2), fence })],
        [
          'rewrite',
          () => repository.rewrite({ ...checkpoint('order-1', 1), expectedDigest: 'digest:order-1:1:', fence }),
        ],
        ['putWrites', () => repository.putWrites('order-1', 1, [write('charge', 0, 'paid')], fence)],
        ['delete', () => repository.delete('order-1')],
        ['copy', () => repository.copy('order-1', 'order-2')],
        ['prune', () => repository.prune('order-1', { keepLast: 1 })],
        ['claim', () => repository.claim({ owner: 'node-b', ttlMs: 1000, now: 5000, limit: 1 })],
        ['renew', () => repository.renew(lease!, 1000, 1)],
        ['release', () => repository.release(lease!)],
        ['putMessage', () => repository.putMessage(message)],
        ['takeMessage', () => repository.takeMessage('paid', null, 1, 'order-1')],
        ['deleteMessage', () => repository.deleteMessage('m-1')],
        ['expireMessages', () => repository.expireMessages(10)],
        [
          'putDeployment',
          () => repository.putDeployment({ definitionId: 'd', digest: 'x', xml: '<d/>', deployedAt: 1 }),
        ],
      ];
      for (const [name, attempt] of writes) {
        const error = await rejectionOf(attempt());
        expect(error, name).toBeInstanceOf(StoreUpgradedError);
        const upgraded = error as StoreUpgradedError;
        expect(upgraded.code, name).toBe('THRESHER_STORE_UPGRADED');
        expect(upgraded.retryable, name).toBe(false);
        expect(upgraded.schema, name).toBeGreaterThan(upgraded.supported);
        expect(upgraded.message, name).toContain(`migrated to schema ${upgraded.schema}`);
        expect(upgraded.message, name).toContain(`knows schema ${upgraded.supported}`);
      }
      // Nothing was written, and reads still answer.
      expect((await repository.get('order-1'))?.seq).toBe(1);
      expect((await repository.list('order-1')).map(({ seq, writes }) => [seq, writes.length])).toEqual([[1, 0]]);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['order-1']);
      expect(await repository.deployments()).toEqual([]);
    });

    test('TH-SCHEMA-02', async (repository, store) => {
      await repository.put(checkpoint('order-1', 1));

      await store.upgradeSchema();

      const error = await rejectionOf(store.reopen());
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).code).toBe('THRESHER_FUTURE_SCHEMA');
    });
  });
}
