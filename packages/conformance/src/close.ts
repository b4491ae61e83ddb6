import type { Repository } from '@thresher/checkpoint';
import { describe } from 'vitest';
import { checkpoint, contractTest, expectStoreError } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#close`: handles are released and the repository refuses further work. */
export function describeClose<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'close.ts');

  describe('Repository#close', () => {
    test('TH-CLOSE-01', async (repository) => {
      await repository.put(checkpoint('order-1', 1));

      await repository.close();

      await expectStoreError(repository.put(checkpoint('order-1', 2)));
      await expectStoreError(
        repository.rewrite({
          instanceId: 'order-1',
          seq: 1,
          expectedDigest: checkpoint('order-1', 1).digest,
          schema: 2,
          digest: 'digest-2',
          bytes: new Uint8Array([1]),
        }),
      );
      await expectStoreError(repository.putWrites('order-1', 1, []));
      await expectStoreError(repository.get('order-1'));
      await expectStoreError(repository.list('order-1'));
      await expectStoreError(repository.delete('order-1'));
      await expectStoreError(repository.copy('order-1', 'order-2'));
      await expectStoreError(repository.prune('order-1', { keepLast: 1 }));
      await expectStoreError(repository.instances());
      await expectStoreError(repository.claim({ owner: 'node-a', ttlMs: 1000, now: 0, limit: 1 }));
      const lease = { instanceId: 'order-1', owner: 'node-a', token: 1, expiresAt: 1000 };
      await expectStoreError(repository.renew(lease, 1000, 0));
      await expectStoreError(repository.release(lease));
      await expectStoreError(repository.dueTimers(0, 10));
      await expectStoreError(repository.subscriptions('payment', null));
      const message = {
        id: 'm',
        name: 'payment',
        correlationKey: null,
        variables: new Uint8Array(),
        publishedAt: 0,
        expiresAt: 1,
      };
      await expectStoreError(repository.putMessage(message));
      await expectStoreError(repository.takeMessage('payment', null, 0, 'order-1'));
      await expectStoreError(repository.deleteMessage('m'));
      await expectStoreError(repository.expireMessages(0));
      await expectStoreError(
        repository.putDeployment({ definitionId: 'd', digest: 'digest-1', xml: '<definitions/>', deployedAt: 0 }),
      );
      await expectStoreError(repository.getDeployment('digest-1'));
      await expectStoreError(repository.deployments());
    });

    test('TH-CLOSE-02', async (repository) => {
      await repository.close();

      await repository.close();
    });
  });
}
