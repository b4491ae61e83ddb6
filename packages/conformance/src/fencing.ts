import type { ClaimOptions, Fence, Lease, PutCheckpoint, Repository, RewriteCheckpoint } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectLeaseLost,
  expectStored,
  expectWrites,
  putChain,
  utf8,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const TTL = 30_000;
const T0 = 1_700_000_000_000;
const by = (owner: string, now: number): ClaimOptions => ({ owner, ttlMs: TTL, now, limit: 10 });
const fence = (lease: Lease): Fence => ({ owner: lease.owner, token: lease.token });

/** A rewrite of `stored` to new bytes, as a schema migration would. */
function migration(stored: PutCheckpoint, note = 'migrated'): RewriteCheckpoint {
  return {
    instanceId: stored.instanceId,
    seq: stored.seq,
    expectedDigest: stored.digest,
    schema: stored.schema + 1,
    digest: `${stored.digest}:${note}`,
    bytes: utf8(`${note}:${stored.instanceId}:${stored.seq}`),
  };
}

/** Put two checkpoints of `order-1`, then let node-a claim it and node-b take it over once it lapsed. */
async function leaseMoved(repository: Repository) {
  const chain = await putChain(repository, 'order-1', 2);
  const [lost] = await repository.claim(by('node-a', T0));
  const [held] = await repository.claim(by('node-b', lost!.expiresAt));
  return { chain, lost: lost!, held: held! };
}

/** Fenced writes: `put`, `putWrites` and `rewrite` carry the lease they are made under. */
export function describeFencing<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'fencing.ts');

  describe('Repository fencing', () => {
    test('TH-FENCE-01', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const [lease] = await repository.claim(by('node-a', T0));
      const second = { ...checkpoint('order-1', 2), fence: fence(lease!) };

      await repository.put(second);
      await repository.putWrites('order-1', 2, [write('task', 0, 'done')], fence(lease!));
      const change = { ...migration(first!), fence: fence(lease!) };
      await repository.rewrite(change);

      expectStored(await repository.get('order-1'), second, [write('task', 0, 'done')]);
      expect((await repository.get('order-1', 1))?.digest).toBe(change.digest);
    });

    test('TH-FENCE-02', async (repository) => {
      const { chain, lost } = await leaseMoved(repository);

      await expectLeaseLost(
        repository.put({ ...checkpoint('order-1', 3), fence: fence(lost) }),
        'order-1',
        'node-a',
        lost.token,
      );

      expectStored(await repository.get('order-1'), chain[1]!);
      expect((await repository.instances())[0]?.latestSeq).toBe(2);
    });

    test('TH-FENCE-03', async (repository) => {
      const { lost } = await leaseMoved(repository);

      await expectLeaseLost(
        repository.putWrites('order-1', 2, [write('task', 0, 'late')], fence(lost)),
        'order-1',
        'node-a',
        lost.token,
      );

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('TH-FENCE-04', async (repository) => {
      const { chain, lost } = await leaseMoved(repository);

      await expectLeaseLost(
        repository.rewrite({ ...migration(chain[0]!), fence: fence(lost) }),
        'order-1',
        'node-a',
        lost.token,
      );

      expectStored(await repository.get('order-1', 1), chain[0]!);
    });

    test('TH-FENCE-05', async (repository) => {
      const chain = await putChain(repository, 'order-1', 2);
      await repository.claim(by('node-a', T0));

      const unfenced = [
        () => repository.put(checkpoint('order-1', 3)),
        () => repository.putWrites('order-1', 2, [write('task', 0, 'unfenced')]),
        () => repository.rewrite(migration(chain[0]!)),
      ];
      for (const attempt of unfenced) await expectLeaseLost(attempt(), 'order-1', null, null);
      const error = await repository.put(checkpoint('order-1', 3)).catch((caught: unknown) => caught);
      expect((error as Error).message).toContain('node-a');

      expectStored(await repository.get('order-1'), chain[1]!);
      expectStored(await repository.get('order-1', 1), chain[0]!);
    });

    test('TH-FENCE-06', async (repository) => {
      const chain = await putChain(repository, 'order-1', 1);
      const [lease] = await repository.claim(by('node-a', T0));
      await repository.release(lease!);
      const second = checkpoint('order-1', 2);

      await repository.put(second);
      await repository.putWrites('order-1', 2, [write('task', 0, 'unfenced')]);
      await repository.rewrite(migration(chain[0]!));

      expectStored(await repository.get('order-1'), second, [write('task', 0, 'unfenced')]);
    });

    test('TH-FENCE-07', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const [lease] = await repository.claim(by('node-a', T0));
      await repository.release(lease!);

      await expectLeaseLost(
        repository.put({ ...checkpoint('order-1', 2), fence: fence(lease!) }),
        'order-1',
        'node-a',
        lease!.token,
      );

      expect((await repository.get('order-1'))?.seq).toBe(1);
    });

    test('TH-FENCE-08', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const [old] = await repository.claim(by('node-a', T0));
      const [current] = await repository.claim(by('node-a', old!.expiresAt));
      const second = { ...checkpoint('order-1', 2), fence: fence(current!) };

      await expectLeaseLost(
        repository.put({ ...checkpoint('order-1', 2, { note: 'old' }), fence: fence(old!) }),
        'order-1',
        'node-a',
        old!.token,
      );
      await repository.put(second);

      expectStored(await repository.get('order-1'), second);
    });

    test('TH-FENCE-09', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const [lease] = await repository.claim(by('node-a', T0));
      const second = { ...checkpoint('order-1', 2), fence: fence(lease!) };
      await repository.put(second);
      await repository.claim(by('node-b', lease!.expiresAt));

      // The same put again (a retry after a lost acknowledgement) would be a no-op, but the lease is gone.
      await expectLeaseLost(repository.put(second), 'order-1', 'node-a', lease!.token);
      await expectLeaseLost(repository.put({ ...first!, fence: fence(lease!) }), 'order-1', 'node-a', lease!.token);
    });

    test('TH-FENCE-10', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const [lease] = await repository.claim(by('node-a', T0));
      const second = { ...checkpoint('order-1', 2), fence: fence(lease!) };

      // Nobody claimed the instance after the lease lapsed, so its holder's writes are still the only ones.
      await repository.put(second);
      await repository.putWrites('order-1', 2, [write('task', 0, 'late but safe')], fence(lease!));

      expectStored(await repository.get('order-1'), second, [write('task', 0, 'late but safe')]);
    });

    test('TH-FENCE-11', async (repository) => {
      await expectLeaseLost(
        repository.put({ ...checkpoint('order-1', 1), fence: { owner: 'node-a', token: 1 } }),
        'order-1',
        'node-a',
        1,
      );

      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.instances()).toEqual([]);
    });

    test('TH-FENCE-12', async (repository, store) => {
      await putChain(repository, 'order-1', 2);
      const other = await store.connect();
      const [lost] = await repository.claim(by('node-a', T0));
      const [held] = await other.claim(by('node-b', lost!.expiresAt));

      await expectLeaseLost(
        repository.put({ ...checkpoint('order-1', 3, { note: 'node-a' }), fence: fence(lost!) }),
        'order-1',
        'node-a',
        lost!.token,
      );
      const third = { ...checkpoint('order-1', 3, { note: 'node-b' }), fence: fence(held!) };
      await other.put(third);
      await other.putWrites('order-1', 3, [write('task', 0, 'node-b')], fence(held!));

      expectStored(await repository.get('order-1'), third, [write('task', 0, 'node-b')]);
      expectWrites((await other.get('order-1'))!.writes, [write('task', 0, 'node-b')]);
    });
  });
}
