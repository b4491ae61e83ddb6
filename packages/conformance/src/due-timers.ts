import type { InstanceMeta, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, putChain } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const T0 = 1_700_000_000_000;

/** Put one checkpoint of an instance with this meta. */
const putWith = (repository: Repository, instanceId: string, meta: Partial<InstanceMeta>) =>
  repository.put(checkpoint(instanceId, 1, { meta }));

/** `Repository#dueTimers`: running instances whose earliest timer is due, earliest first. */
export function describeDueTimers<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'due-timers.ts');

  describe('Repository#dueTimers', () => {
    test('TH-TIMERS-01', async (repository) => {
      await putWith(repository, 'order-c', { dueAt: T0 + 20 });
      await putWith(repository, 'order-b', { dueAt: T0 + 10 });
      await putWith(repository, 'order-a', { dueAt: T0 + 20 });
      await putWith(repository, 'order-d', { dueAt: T0 - 5 });

      expect(await repository.dueTimers(T0 + 20, 10)).toEqual([
        { instanceId: 'order-d', dueAt: T0 - 5 },
        { instanceId: 'order-b', dueAt: T0 + 10 },
        { instanceId: 'order-a', dueAt: T0 + 20 },
        { instanceId: 'order-c', dueAt: T0 + 20 },
      ]);
      expect(await repository.dueTimers(T0 + 10, 10)).toEqual([
        { instanceId: 'order-d', dueAt: T0 - 5 },
        { instanceId: 'order-b', dueAt: T0 + 10 },
      ]);
    });

    test('TH-TIMERS-02', async (repository) => {
      await putWith(repository, 'no-timer', { dueAt: null });
      await putWith(repository, 'later', { dueAt: T0 + 1 });
      await putWith(repository, 'completed', { dueAt: T0 - 1, status: 'completed' });
      await putWith(repository, 'terminated', { dueAt: T0 - 1, status: 'terminated' });
      await putWith(repository, 'due', { dueAt: T0 });

      expect(await repository.dueTimers(T0, 10)).toEqual([{ instanceId: 'due', dueAt: T0 }]);
    });

    test('TH-TIMERS-03', async (repository) => {
      expect(await repository.dueTimers(T0, 10)).toEqual([]);
      for (let i = 0; i < 5; i++) await putWith(repository, `order-${i}`, { dueAt: T0 - i });

      expect((await repository.dueTimers(T0, 2)).map(({ instanceId }) => instanceId)).toEqual(['order-4', 'order-3']);
      expect(await repository.dueTimers(T0, 0)).toEqual([]);
    });

    test('TH-TIMERS-04', async (repository) => {
      await putChain(repository, 'moved', 1, { meta: { dueAt: T0 } });
      await putChain(repository, 'cleared', 1, { meta: { dueAt: T0 } });

      await repository.put(checkpoint('moved', 2, { meta: { dueAt: T0 + 60_000 } }));
      await repository.put(checkpoint('cleared', 2, { meta: { dueAt: null } }));

      expect(await repository.dueTimers(T0, 10)).toEqual([]);
      expect(await repository.dueTimers(T0 + 60_000, 10)).toEqual([{ instanceId: 'moved', dueAt: T0 + 60_000 }]);
    });

    test('TH-TIMERS-05', async (repository) => {
      await putWith(repository, 'order-1', { dueAt: T0 });
      await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: T0, limit: 1 });

      expect(await repository.dueTimers(T0, 10)).toEqual([{ instanceId: 'order-1', dueAt: T0 }]);
    });
  });
}
