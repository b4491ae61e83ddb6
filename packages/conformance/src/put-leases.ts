import { LeaseLostError, type Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectConflict, expectLeaseLost, rejectionOf } from './fixtures.js';
import { asHeld } from './leases.js';
import type { RepositoryContractInitializer } from './types.js';

const TTL = 30_000;
const T0 = 1_700_000_000_000;
const claim = (owner: string, now = T0) => ({ owner, ttlMs: TTL, now });

/** `put` with `claim` or `release`: a lease taken or let go of in the write that stores the checkpoint. */
export function describePutLeases<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'put-leases.ts');

  describe('Repository#put with claim and release', () => {
    test('TH-LEASE-21', async (repository) => {
      const lease = await repository.put({ ...checkpoint('order-1', 1), claim: claim('node-a') });

      expect(lease).toMatchObject({ instanceId: 'order-1', owner: 'node-a', expiresAt: T0 + TTL });
      expect(Number.isSafeInteger(lease!.token) && lease!.token > 0).toBe(true);
      expect(await repository.lease('order-1')).toEqual(lease);
      expect(await repository.claim({ ...claim('node-b', T0 + 1), limit: 10 })).toEqual([]);
      await repository.put({ ...checkpoint('order-1', 2), fence: lease! });
      expect((await repository.get('order-1'))?.seq).toBe(2);
    });

    test('TH-LEASE-22', async (repository) => {
      const lease = await repository.put({ ...checkpoint('order-1', 1), claim: claim('node-a') });

      await repository.put({
        ...checkpoint('order-1', 2, { meta: { status: 'completed' } }),
        fence: lease!,
        release: true,
      });

      expect(await repository.lease('order-1')).toBeUndefined();
      expect((await repository.get('order-1'))?.seq).toBe(2);
      await repository.put({ ...checkpoint('order-2', 1), claim: claim('node-b') });
      const [next] = await repository.claim({ ...claim('node-b'), limit: 1, instanceIds: ['order-2'] });
      expect(next).toBeUndefined();
      expect((await repository.lease('order-2'))!.token).toBeGreaterThan(lease!.token);
    });

    test('TH-LEASE-23', async (repository) => {
      const first = checkpoint('order-1', 1);
      await repository.put(first);
      const lease = await repository.put({ ...checkpoint('order-2', 1), claim: claim('node-a') });

      const refusals = [
        repository.put({ ...checkpoint('order-1', 2), claim: claim('node-a') }),
        repository.put({ ...checkpoint('order-3', 1), claim: claim('node-a'), fence: lease! }),
        repository.put({ ...checkpoint('order-2', 2), fence: lease!, claim: claim('node-a'), release: true }),
        repository.put({ ...checkpoint('order-1', 2), release: true }),
        repository.put({ ...checkpoint('order-3', 1), claim: { owner: 'node-a', ttlMs: 0, now: T0 } }),
      ];

      for (const refusal of refusals) expect(await rejectionOf(refusal)).toBeInstanceOf(RangeError);
      expect((await repository.get('order-1'))?.seq).toBe(1);
      expect(await repository.get('order-3')).toBeUndefined();
      expect(await repository.lease('order-1')).toBeUndefined();
    });

    test('TH-LEASE-24', async (repository) => {
      await repository.put(checkpoint('order-1', 1, { note: 'stored' }));
      const lease = await repository.put({ ...checkpoint('order-2', 1), claim: claim('node-a') });
      const [taken] = await repository.claim({
        ...claim('node-b', lease!.expiresAt),
        limit: 1,
        instanceIds: ['order-2'],
      });

      await expectConflict(
        repository.put({ ...checkpoint('order-1', 1, { note: 'other' }), claim: claim('node-a') }),
        'order-1',
        1,
      );
      await expectLeaseLost(
        repository.put({ ...checkpoint('order-2', 2), fence: lease!, release: true }),
        'order-2',
        'node-a',
        lease!.token,
      );

      expect(await repository.lease('order-1')).toBeUndefined();
      expect(await repository.lease('order-2')).toEqual(taken && asHeld(taken));
    });

    test('TH-LEASE-25', async (repository) => {
      const ended = await repository.put({
        ...checkpoint('order-1', 1, { meta: { status: 'completed' } }),
        claim: claim('node-a'),
      });
      const [held] = await repository.claim({ ...claim('node-b'), limit: 1 });
      await repository.put(checkpoint('order-2', 1));
      const replayedBy = await repository.put({ ...checkpoint('order-2', 1), claim: claim('node-a') });

      expect(ended).toBeUndefined();
      expect(held).toBeUndefined();
      expect((await repository.get('order-1'))?.seq).toBe(1);
      expect(replayedBy).toMatchObject({ instanceId: 'order-2', owner: 'node-a' });
      // the replay is now an unfenced write to an instance node-a holds: refused, as any such write
      expect(await rejectionOf(repository.put({ ...checkpoint('order-2', 1), claim: claim('node-b') }))).toBeInstanceOf(
        LeaseLostError,
      );
    });
  });
}
