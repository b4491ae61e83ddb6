import { describe, expect } from 'vitest';
import type { Repository } from '../repository.js';
import {
  binaryBytes,
  checkpoint,
  contractTest,
  expectBytes,
  expectConflict,
  expectStored,
  putChain,
  rejectionOf,
  utf8,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#put`: optimistic writes, idempotent replays, verbatim bytes. */
export function describePut<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer);

  describe('Repository#put', () => {
    test("should store an instance's first checkpoint when its parentSeq is null", async (repository) => {
      const first = checkpoint('order-1', 1);

      await repository.put(first);

      expectStored(await repository.get('order-1'), first);
    });

    test('should refuse a first checkpoint whose parentSeq is not null with a ConflictError', async (repository) => {
      await expectConflict(repository.put(checkpoint('order-1', 2, { parentSeq: 1 })), 'order-1', 2);

      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.instances()).toEqual([]);
    });

    test('should store a checkpoint whose parentSeq is the latest seq', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2);

      expectStored(await repository.get('order-1'), second!);
    });

    test('should refuse a stale parentSeq with a ConflictError and keep the latest checkpoint', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2);

      await expectConflict(repository.put(checkpoint('order-1', 3, { parentSeq: 1 })), 'order-1', 3);

      expectStored(await repository.get('order-1'), second!);
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    });

    test('should refuse a parentSeq ahead of the latest seq with a ConflictError', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await expectConflict(repository.put(checkpoint('order-1', 3, { parentSeq: 2 })), 'order-1', 3);

      expect((await repository.get('order-1'))?.seq).toBe(1);
    });

    test('should refuse a null parentSeq once the instance has a checkpoint', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await expectConflict(repository.put(checkpoint('order-1', 2, { parentSeq: null })), 'order-1', 2);
    });

    test('should treat re-putting an existing seq with identical bytes as a no-op', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      const replay = { ...first!, bytes: new Uint8Array(first!.bytes) };

      await repository.put(replay);

      expectStored(await repository.get('order-1'), second!);
      expectStored(await repository.get('order-1', 1), first!);
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    });

    test('should refuse re-putting an existing seq with different bytes with a ConflictError', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);

      await expectConflict(repository.put(checkpoint('order-1', 1, { note: 'other writer' })), 'order-1', 1);

      expectStored(await repository.get('order-1', 1), first!);
    });

    test('should let exactly one of two concurrent puts extending the same parent win', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const mine = checkpoint('order-1', 2, { note: 'mine' });
      const theirs = checkpoint('order-1', 2, { note: 'theirs' });

      const outcomes = await Promise.allSettled([repository.put(mine), repository.put(theirs)]);

      const winners = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [[mine, theirs][i]!] : []));
      expect(winners).toHaveLength(1);
      const loser = outcomes.findIndex((outcome) => outcome.status === 'rejected');
      await expectConflict(Promise.reject((outcomes[loser] as PromiseRejectedResult).reason), 'order-1', 2);
      expectStored(await repository.get('order-1'), winners[0]!);
    });

    test('should let exactly one of two concurrent puts creating the same instance win', async (repository) => {
      const mine = checkpoint('order-1', 1, { note: 'mine' });
      const theirs = checkpoint('order-1', 1, { note: 'theirs' });

      const outcomes = await Promise.allSettled([repository.put(mine), repository.put(theirs)]);

      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const rejected = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      await expectConflict(Promise.reject(rejected.reason), 'order-1', 1);
      expect(await repository.list('order-1')).toHaveLength(1);
    });

    test('should keep document bytes verbatim, including 0x00 and every other byte value', async (repository) => {
      const bytes = new Uint8Array(512);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
      const first = checkpoint('order-1', 1, { bytes: Uint8Array.of(0, 0, ...bytes, 0) });

      await repository.put(first);

      expectBytes((await repository.get('order-1'))?.bytes, first.bytes);
    });

    test('should round-trip a 1 MB document exactly', async (repository) => {
      const first = checkpoint('order-1', 1, { bytes: binaryBytes(1024 * 1024) });

      await repository.put(first);

      expectBytes((await repository.get('order-1'))?.bytes, first.bytes);
      expectBytes((await repository.list('order-1'))[0]?.bytes, first.bytes);
    });

    test('should not change what is stored when the caller mutates its buffer after put', async (repository) => {
      const bytes = utf8('{"seq":1}');
      const original = new Uint8Array(bytes);

      await repository.put(checkpoint('order-1', 1, { bytes }));
      bytes.fill(0x21);

      expectBytes((await repository.get('order-1'))?.bytes, original);
    });

    test('should keep unicode and emoji ids and meta verbatim', async (repository) => {
      const instanceId = 'заказ-注文-🚚-ñ';
      const first = checkpoint(instanceId, 1, {
        definitionDigest: 'δ-🔒',
        meta: {
          processId: 'prozess_ü',
          definitionId: 'définition-📦',
          businessKey: '🧾 order #1 — naïve 𝄞',
          parentId: 'родитель-👪',
          callNodeId: 'call_呼',
        },
      });

      await repository.put(first);

      expectStored(await repository.get(instanceId), first);
      expect(await repository.instances()).toEqual([
        { ...first.meta, instanceId, latestSeq: 1, definitionDigest: 'δ-🔒' },
      ]);
    });

    test('should keep the checkpoints of different instances apart', async (repository) => {
      const [a] = await putChain(repository, 'order-a', 1);
      const [, b] = await putChain(repository, 'order-b', 2);

      expectStored(await repository.get('order-a'), a!);
      expectStored(await repository.get('order-b'), b!);
      expect(await repository.get('order-a', 2)).toBeUndefined();
    });

    test('should reject rather than throw synchronously when it refuses', async (repository) => {
      await putChain(repository, 'order-1', 2);
      let promise: Promise<void> | undefined;

      expect(() => {
        promise = repository.put(checkpoint('order-1', 3, { parentSeq: 1 }));
      }).not.toThrow();

      expect(await rejectionOf(promise!)).toBeDefined();
    });
  });
}
