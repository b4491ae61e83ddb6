import type { MessageSubscription, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#subscriptions`: running instances waiting on a message name and correlation key. */
export function describeSubscriptions<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'subscriptions.ts');
  const putWaiting = (repository: Repository, instanceId: string, subscriptions: MessageSubscription[], seq = 1) =>
    repository.put(checkpoint(instanceId, seq, { meta: { subscriptions } }));

  describe('Repository#subscriptions', () => {
    test('TH-SUBS-01', async (repository) => {
      await putWaiting(repository, 'order-b', [{ name: 'payment', key: 'po-1' }]);
      await putWaiting(repository, 'order-a', [
        { name: 'payment', key: 'po-1' },
        { name: 'payment', key: 'po-1' },
      ]);
      await putWaiting(repository, 'order-c', [{ name: 'payment', key: 'po-2' }]);
      await putWaiting(repository, 'order-d', [{ name: 'shipment', key: 'po-1' }]);

      expect(await repository.subscriptions('payment', 'po-1')).toEqual(['order-a', 'order-b']);
      expect(await repository.subscriptions('payment', 'po-2')).toEqual(['order-c']);
      expect(await repository.subscriptions('payment', 'po-3')).toEqual([]);
      expect(await repository.subscriptions('refund', 'po-1')).toEqual([]);
    });

    test('TH-SUBS-02', async (repository) => {
      await putWaiting(repository, 'unkeyed', [{ name: 'cancel', key: null }]);
      await putWaiting(repository, 'keyed', [{ name: 'cancel', key: 'po-1' }]);
      await putWaiting(repository, 'empty-key', [{ name: 'cancel', key: '' }]);

      expect(await repository.subscriptions('cancel', null)).toEqual(['unkeyed']);
      expect(await repository.subscriptions('cancel', 'po-1')).toEqual(['keyed']);
      expect(await repository.subscriptions('cancel', '')).toEqual(['empty-key']);
    });

    test('TH-SUBS-03', async (repository) => {
      await putWaiting(repository, 'moved-on', [{ name: 'payment', key: 'po-1' }]);
      await putWaiting(repository, 'completed', [{ name: 'payment', key: 'po-1' }]);
      await putWaiting(repository, 'still-waiting', [{ name: 'payment', key: 'po-1' }]);

      await putWaiting(repository, 'moved-on', [{ name: 'shipment', key: 'po-1' }], 2);
      await repository.put(
        checkpoint('completed', 2, {
          meta: { status: 'completed', subscriptions: [{ name: 'payment', key: 'po-1' }] },
        }),
      );

      expect(await repository.subscriptions('payment', 'po-1')).toEqual(['still-waiting']);
      expect(await repository.subscriptions('shipment', 'po-1')).toEqual(['moved-on']);
    });

    test('TH-SUBS-04', async (repository) => {
      const name = 'Zahlung \u{1F4B6} \u6CE8\u6587';
      const key = 'kunde-\u00FC-\u{1F9FE}-e\u0301';
      await putWaiting(repository, 'order-\u{1F69A}', [{ name, key }]);
      await putWaiting(repository, 'order-2', [{ name: name.toLowerCase(), key }]);

      expect(await repository.subscriptions(name, key)).toEqual(['order-\u{1F69A}']);
      expect(await repository.subscriptions(name, 'kunde-\u00FC-\u{1F9FE}-\u00E9')).toEqual([]);
      expect(await repository.subscriptions(name.toUpperCase(), key)).toEqual([]);
    });
  });
}
