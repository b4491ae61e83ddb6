import type { ClaimOptions, Lease, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectLeaseLost, putChain, rejectionOf } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const TTL = 30_000;
const T0 = 1_700_000_000_000;

/** A claim by `owner` at `now` for up to 10 instances. */
const by = (owner: string, now: number, extra: Partial<ClaimOptions> = {}): ClaimOptions => ({
  owner,
  ttlMs: TTL,
  now,
  limit: 10,
  ...extra,
});
const ids = (leases: Lease[]) => leases.map(({ instanceId }) => instanceId);
/** A claimed lease as `lease` reads it back: `takenFrom` is the claim's news alone. */
export const asHeld = ({ takenFrom: _takenFrom, ...lease }: Lease): Lease => lease;

/** Put one checkpoint of each instance, running unless told otherwise. */
async function putInstances(repository: Repository, ...instanceIds: string[]): Promise<void> {
  for (const instanceId of instanceIds) await putChain(repository, instanceId, 1);
}

/** `Repository#claim`, `#renew`, `#release`: one lease per instance, fencing tokens that only grow. */
export function describeLeases<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'leases.ts');

  describe('Repository#claim, #renew, #release', () => {
    test('TH-LEASE-01', async (repository) => {
      await putInstances(repository, 'order-c', 'order-a', 'order-d', 'order-b');

      const first = await repository.claim(by('node-a', T0, { limit: 3 }));
      const rest = await repository.claim(by('node-b', T0));

      expect(ids(first)).toEqual(['order-a', 'order-b', 'order-c']);
      expect(ids(rest)).toEqual(['order-d']);
      for (const lease of first) {
        expect(lease).toMatchObject({ owner: 'node-a', expiresAt: T0 + TTL });
        expect(Number.isSafeInteger(lease.token) && lease.token > 0).toBe(true);
      }
      expect(rest[0]).toMatchObject({ owner: 'node-b', expiresAt: T0 + TTL });
    });

    test('TH-LEASE-02', async (repository) => {
      await putInstances(repository, 'order-1');
      await repository.put(checkpoint('order-2', 1, { meta: { status: 'completed' } }));
      await repository.put(checkpoint('order-3', 1, { meta: { status: 'terminated' } }));

      expect(ids(await repository.claim(by('node-a', T0)))).toEqual(['order-1']);
    });

    test('TH-LEASE-03', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2');
      await repository.claim(by('node-a', T0, { instanceIds: ['order-1'] }));
      await repository.claim(by('node-b', T0, { instanceIds: ['order-2'] }));

      expect(await repository.claim(by('node-a', T0 + TTL - 1))).toEqual([]);
      expect(await repository.claim(by('node-c', T0 + TTL - 1))).toEqual([]);
    });

    test('TH-LEASE-04', async (repository) => {
      await putInstances(repository, 'order-1');
      const [old] = await repository.claim(by('node-a', T0));

      const [taken] = await repository.claim(by('node-b', old!.expiresAt));

      expect(taken).toMatchObject({ instanceId: 'order-1', owner: 'node-b', expiresAt: old!.expiresAt + TTL });
      expect(taken!.token).toBeGreaterThan(old!.token);
      const [again] = await repository.claim(by('node-a', taken!.expiresAt + 5));
      expect(again!.token).toBeGreaterThan(taken!.token);
    });

    test('TH-LEASE-05', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2', 'order-3');

      const leases = await repository.claim(by('node-a', T0, { instanceIds: ['order-3', 'missing', 'order-1'] }));

      expect(ids(leases)).toEqual(['order-1', 'order-3']);
      expect(await repository.claim(by('node-a', T0, { instanceIds: [] }))).toEqual([]);
      expect(ids(await repository.claim(by('node-b', T0)))).toEqual(['order-2']);
    });

    test('TH-LEASE-06', async (repository) => {
      expect(await repository.claim(by('node-a', T0))).toEqual([]);
      await putInstances(repository, 'order-1');

      expect(await repository.claim(by('node-a', T0, { limit: 0 }))).toEqual([]);
      expect(ids(await repository.claim(by('node-a', T0)))).toEqual(['order-1']);
    });

    test('TH-LEASE-07', async (repository) => {
      await putInstances(repository, 'order-1');
      const tokens: number[] = [];
      let now = T0;
      for (const owner of ['node-a', 'node-b', 'node-a', 'node-c']) {
        const [lease] = await repository.claim(by(owner, now));
        tokens.push(lease!.token);
        if (owner === 'node-b') await repository.release(lease!);
        else now = lease!.expiresAt;
      }

      expect(tokens).toHaveLength(4);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]!);
    });

    test('TH-LEASE-08', async (repository) => {
      await putInstances(repository, 'order-1');
      const [first] = await repository.claim(by('node-a', T0));
      await repository.delete('order-1');
      await putInstances(repository, 'order-1');

      const [second] = await repository.claim(by('node-a', T0));

      expect(second!.token).toBeGreaterThan(first!.token);
    });

    test('TH-LEASE-09', async (repository) => {
      await putInstances(repository, 'order-1');
      const [lease] = await repository.claim(by('node-a', T0));

      const renewed = await repository.renew(lease!, 90_000, T0 + 10_000);

      expect(renewed).toEqual({ ...lease!, expiresAt: T0 + 100_000 });
      expect(await repository.claim(by('node-b', T0 + TTL))).toEqual([]);
      expect(ids(await repository.claim(by('node-b', T0 + 100_000)))).toEqual(['order-1']);
    });

    test('TH-LEASE-10', async (repository) => {
      await putInstances(repository, 'order-1');
      const [lease] = await repository.claim(by('node-a', T0));
      const [taken] = await repository.claim(by('node-b', lease!.expiresAt));

      await expectLeaseLost(repository.renew(lease!, TTL, lease!.expiresAt + 1), 'order-1', 'node-a', lease!.token);

      expect(await repository.renew(taken!, TTL, lease!.expiresAt + 1)).toMatchObject({ owner: 'node-b' });
    });

    test('TH-LEASE-11', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2');
      const [one, two] = await repository.claim(by('node-a', T0));
      await repository.release(one!);
      await repository.delete('order-2');

      await expectLeaseLost(repository.renew(one!, TTL, T0 + 1), 'order-1', 'node-a', one!.token);
      await expectLeaseLost(repository.renew(two!, TTL, T0 + 1), 'order-2', 'node-a', two!.token);
    });

    test('TH-LEASE-12', async (repository) => {
      await putInstances(repository, 'order-1');
      const [lease] = await repository.claim(by('node-a', T0));

      const renewed = await repository.renew(lease!, TTL, lease!.expiresAt + 5_000);

      expect(renewed).toEqual({ ...lease!, expiresAt: lease!.expiresAt + 5_000 + TTL });
    });

    test('TH-LEASE-13', async (repository) => {
      await putInstances(repository, 'order-1');
      const [lease] = await repository.claim(by('node-a', T0));

      await repository.release(lease!);
      const [next] = await repository.claim(by('node-b', T0 + 1));
      await repository.release(lease!);

      expect(next).toMatchObject({ instanceId: 'order-1', owner: 'node-b' });
      expect(next!.token).toBeGreaterThan(lease!.token);
      expect(await repository.renew(next!, TTL, T0 + 2)).toMatchObject({ owner: 'node-b', token: next!.token });
      await expect(repository.release({ ...next!, instanceId: 'missing' })).resolves.toBeUndefined();
    });

    test('TH-LEASE-14', async (repository) => {
      await putInstances(repository, 'order-1');

      for (const options of [
        by('node-a', T0, { ttlMs: 0 }),
        by('node-a', T0, { ttlMs: -5 }),
        by('node-a', Number.NaN),
        by('node-a', T0, { limit: -1 }),
      ]) {
        expect(await rejectionOf(repository.claim(options))).toBeInstanceOf(RangeError);
      }
      const [lease] = await repository.claim(by('node-a', T0));
      expect(await rejectionOf(repository.renew(lease!, 0, T0))).toBeInstanceOf(RangeError);
      expect(await rejectionOf(repository.renew(lease!, TTL, Number.POSITIVE_INFINITY))).toBeInstanceOf(RangeError);
      expect(await repository.renew(lease!, TTL, T0)).toEqual(lease);
    });

    test('TH-LEASE-15', async (repository) => {
      await putInstances(repository, 'order-1');

      const [mine, theirs] = await Promise.all([
        repository.claim(by('node-a', T0)),
        repository.claim(by('node-b', T0)),
      ]);

      expect([...mine!, ...theirs!]).toHaveLength(1);
    });

    test('TH-LEASE-16', async (repository, store) => {
      const all = Array.from({ length: 40 }, (_, i) => `order-${String(i).padStart(2, '0')}`);
      await putInstances(repository, ...all);
      const other = await store.connect();

      const batches = await Promise.all([
        repository.claim(by('node-a', T0, { limit: 5 })),
        other.claim(by('node-b', T0, { limit: 5 })),
        repository.claim(by('node-a', T0, { limit: 50 })),
        other.claim(by('node-b', T0, { limit: 50 })),
      ]);

      const claimed = batches.flat().map(({ instanceId }) => instanceId);
      expect(claimed.sort()).toEqual(all);
    });

    test('TH-LEASE-17', async (repository, store) => {
      await putInstances(repository, 'order-1', 'order-2');
      const [held, released] = await repository.claim(by('node-a', T0));
      await repository.release(released!);

      const reopened = await store.reopen();

      expect(await reopened.claim(by('node-b', T0 + 1))).toMatchObject([{ instanceId: 'order-2' }]);
      expect(await reopened.renew(held!, TTL, T0 + 2)).toEqual({ ...held!, expiresAt: T0 + 2 + TTL });
      const [next] = await reopened.claim(by('node-c', T0 + 2 + TTL));
      expect(next!.token).toBeGreaterThan(Math.max(held!.token, released!.token));
    });

    test('TH-LEASE-18', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2', 'order-3');
      const [held, released] = await repository.claim(by('node-a', T0, { instanceIds: ['order-1', 'order-2'] }));
      await repository.release(released!);

      expect(await repository.lease('order-1')).toEqual(held);
      // Lapsed but not taken over: still held, by the same owner and token.
      const lapsed = await repository.renew(held!, 1, T0);
      expect(await repository.lease('order-1')).toEqual(lapsed);
      expect(await repository.lease('order-2')).toBeUndefined();
      expect(await repository.lease('order-3')).toBeUndefined();
      expect(await repository.lease('missing')).toBeUndefined();
      await repository.delete('order-1');
      expect(await repository.lease('order-1')).toBeUndefined();
    });

    test('TH-LEASE-19', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2');
      const [gone] = await repository.claim(by('node-gone', T0, { instanceIds: ['order-1'] }));
      const [alive] = await repository.claim(by('node-alive', T0, { instanceIds: ['order-2'] }));

      const taken = await repository.claim(by('node-b', T0 + 1, { takeOver: ['node-gone', 'nobody'] }));

      expect(ids(taken)).toEqual(['order-1']);
      expect(taken[0]!.token).toBeGreaterThan(Math.max(gone!.token, alive!.token));
      expect(await repository.lease('order-1')).toEqual(asHeld(taken[0]!));
      expect(await repository.lease('order-2')).toEqual(alive);
      await expectLeaseLost(repository.renew(gone!, TTL, T0 + 2), 'order-1', 'node-gone', gone!.token);
      const write = repository.put({ ...checkpoint('order-1', 2), fence: { owner: gone!.owner, token: gone!.token } });
      await expectLeaseLost(write, 'order-1', 'node-gone', gone!.token);
    });

    test('TH-LEASE-20', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2', 'order-3', 'order-4', 'order-5', 'order-6', 'order-7');
      await repository.claim(by('node-dead', T0, { instanceIds: ['order-1'] }));
      // order-6 ended under its lease (its holder died before letting go); order-7 ended and was let go of
      const [ending] = await repository.claim(by('node-dead', T0, { instanceIds: ['order-6'] }));
      const [ended] = await repository.claim(by('node-done', T0, { instanceIds: ['order-7'] }));
      for (const lease of [ending!, ended!]) {
        const fence = { owner: lease.owner, token: lease.token };
        await repository.put({ ...checkpoint(lease.instanceId, 2, { meta: { status: 'completed' } }), fence });
      }
      await repository.release(ended!);
      await repository.claim(by('node-gone', T0 + TTL, { instanceIds: ['order-2'] }));
      const [live] = await repository.claim(by('node-alive', T0 + TTL, { instanceIds: ['order-3'] }));
      const [released] = await repository.claim(by('node-done', T0, { instanceIds: ['order-4'] }));
      await repository.release(released!);

      const taken = await repository.claim(by('node-b', T0 + TTL + 1, { lapsedOnly: true, takeOver: ['node-gone'] }));
      const among = await repository.claim(by('node-c', T0 + TTL + 1, { lapsedOnly: true, instanceIds: ['order-5'] }));

      expect(ids(taken)).toEqual(['order-1', 'order-2', 'order-6']);
      expect(among).toEqual([]);
      expect(await repository.lease('order-3')).toEqual(live);
      expect(await repository.lease('order-4')).toBeUndefined();
      expect(await repository.lease('order-5')).toBeUndefined();
    });

    test('TH-LEASE-26', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2', 'order-3');
      const [held] = await repository.claim(by('node-a', T0, { instanceIds: ['order-1'] }));
      const [released] = await repository.claim(by('node-a', T0, { instanceIds: ['order-2'] }));
      await repository.release(released!);

      const taken = await repository.claim(by('node-b', held!.expiresAt));

      expect(taken.map(({ instanceId, takenFrom }) => [instanceId, takenFrom])).toEqual([
        ['order-1', 'node-a'],
        ['order-2', undefined],
        ['order-3', undefined],
      ]);
      expect(taken[1]).not.toHaveProperty('takenFrom');
      expect(await repository.lease('order-1')).not.toHaveProperty('takenFrom');
    });

    test('TH-LEASE-27', async (repository) => {
      await putInstances(repository, 'order-1', 'order-2');
      await repository.claim(by('node-gone', T0, { instanceIds: ['order-1'] }));
      const [ending] = await repository.claim(by('node-dead', T0, { instanceIds: ['order-2'] }));
      const fence = { owner: ending!.owner, token: ending!.token };
      await repository.put({ ...checkpoint('order-2', 2, { meta: { status: 'completed' } }), fence });

      const [overtaken] = await repository.claim(by('node-b', T0 + 1, { takeOver: ['node-gone'] }));
      const [lapsed] = await repository.claim(by('node-c', T0 + TTL, { lapsedOnly: true, instanceIds: ['order-2'] }));

      expect(overtaken).toMatchObject({ instanceId: 'order-1', owner: 'node-b', takenFrom: 'node-gone' });
      expect(lapsed).toMatchObject({ instanceId: 'order-2', owner: 'node-c', takenFrom: 'node-dead' });
    });

    test('TH-LEASE-28', async (repository) => {
      expect(await repository.leaseOwners()).toEqual([]);
      await putInstances(repository, 'order-1', 'order-2', 'order-3', 'order-4');
      await repository.claim(by('node-b', T0, { instanceIds: ['order-1', 'order-2'] }));
      await repository.claim(by('Node-z', T0 - TTL, { instanceIds: ['order-3'] }));
      const [released] = await repository.claim(by('node-c', T0, { instanceIds: ['order-4'] }));
      await repository.release(released!);

      expect(await repository.leaseOwners()).toEqual(['Node-z', 'node-b']);
    });
  });
}
