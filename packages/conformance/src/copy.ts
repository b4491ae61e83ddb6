import { CorruptCheckpointError, openCheckpoint, type Repository, type ScopeRecord } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectConflict,
  expectStored,
  expectWrites,
  putChain,
  sealedCheckpoint,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const lease = { owner: 'node-a', ttlMs: 60_000, now: 1_000, limit: 10 };

/** `Repository#copy`: an instance's whole history to a new id, bytes verbatim, leases left behind. */
export function describeCopy<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'copy.ts');

  describe('Repository#copy', () => {
    test('TH-COPY-01', async (repository) => {
      const source = await putChain(repository, 'source', 2);
      const target = await putChain(repository, 'target', 3, { note: 'target' });
      const summary = await repository.instances();

      await expectConflict(repository.copy('source', 'target'), 'target', 3);

      const listed = await repository.list('target');
      expect(listed.map(({ seq }) => seq)).toEqual([1, 2, 3]);
      target.forEach((stored, i) => {
        expectStored(listed[i], stored);
      });
      expectStored(await repository.get('source'), source[1]!);
      expect(await repository.instances()).toEqual(summary);
    });

    test('TH-COPY-02', async (repository) => {
      const [, second] = await putChain(repository, 'source', 2);

      await expectConflict(repository.copy('source', 'source'), 'source', 2);

      expectStored(await repository.get('source'), second!);
      expect(await repository.list('source')).toHaveLength(2);
    });

    test('TH-COPY-03', async (repository) => {
      await putChain(repository, 'source', 1);
      const [held] = await repository.claim({ ...lease, instanceIds: ['source'] });

      await repository.copy('source', 'target');

      const claimed = await repository.claim({ ...lease, owner: 'node-b' });
      expect(claimed.map(({ instanceId }) => instanceId)).toEqual(['target']);
      const renewed = await repository.renew(held!, 60_000, 2_000);
      expect(renewed).toEqual({ ...held!, expiresAt: 62_000 });
    });

    test('TH-COPY-04', async (repository) => {
      const sealed = sealedCheckpoint('source', 1, { amount: 100 });
      await repository.put(sealed);

      await repository.copy('source', 'target');

      const copied = await repository.get('target');
      expectStored(copied, { ...sealed, instanceId: 'target' });
      expect(
        (openCheckpoint(copied!.bytes, { instanceId: 'source', seq: 1 }).body.scopes[0] as ScopeRecord | undefined)
          ?.data,
      ).toEqual({
        amount: 100,
      });
      expect(() => openCheckpoint(copied!.bytes, { instanceId: 'target', seq: 1 })).toThrow(CorruptCheckpointError);
    });

    test('TH-COPY-05', async (repository) => {
      await putChain(repository, 'source', 2);
      await repository.copy('source', 'target');

      const third = checkpoint('target', 3, { note: 'fork' });
      await repository.put(third);
      await repository.putWrites('target', 3, [write('task-1', 0, 'fork')]);
      await repository.putWrites('source', 2, [write('task-1', 0, 'source')]);
      await repository.prune('target', { keepLast: 1 });

      expectStored(await repository.get('target'), third, [write('task-1', 0, 'fork')]);
      expect((await repository.list('source')).map(({ seq }) => seq)).toEqual([1, 2]);
      expectWrites((await repository.get('source'))!.writes, [write('task-1', 0, 'source')]);
      expect(await repository.get('target', 2)).toBeUndefined();
      expect(await repository.get('source', 2)).toBeDefined();
    });

    test('TH-COPY-06', async (repository) => {
      await putChain(repository, 'source', 1, {
        meta: { dueAt: 5_000, subscriptions: [{ name: 'payment', key: 'po-1' }] },
      });

      await repository.copy('source', 'target');

      expect(await repository.dueTimers(5_000, 10)).toEqual([
        { instanceId: 'source', dueAt: 5_000 },
        { instanceId: 'target', dueAt: 5_000 },
      ]);
      expect(await repository.subscriptions('payment', 'po-1')).toEqual(['source', 'target']);
    });

    test('TH-COPY-07', async (repository) => {
      const chain = await putChain(repository, 'source', 2);
      await repository.claim({ ...lease, owner: 'node-b' });

      await repository.copy('source', 'target');

      const listed = await repository.list('target');
      chain.forEach((stored, i) => {
        expectStored(listed[i], { ...stored, instanceId: 'target' });
      });
    });
  });
}
