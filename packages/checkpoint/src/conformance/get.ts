import { describe, expect } from 'vitest';
import type { Repository } from '../repository.js';
import { checkpoint, contractTest, expectBytes, expectStored, putChain, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#get`: the latest checkpoint or one seq, with its writes. */
export function describeGet<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer);

  describe('Repository#get', () => {
    test('should return undefined for an instance with no checkpoints', async (repository) => {
      expect(await repository.get('missing')).toBeUndefined();
      expect(await repository.get('missing', 1)).toBeUndefined();
    });

    test('should return the latest checkpoint with its writes when no seq is given', async (repository) => {
      const [, , third] = await putChain(repository, 'order-1', 3);
      await repository.putWrites('order-1', 3, [write('charge', 0, 'paid')]);

      expectStored(await repository.get('order-1'), third!, [write('charge', 0, 'paid')]);
    });

    test('should return the checkpoint at a given seq with its writes', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 3);
      await repository.putWrites('order-1', 2, [write('charge', 0, 'paid')]);

      expectStored(await repository.get('order-1', 2), second!, [write('charge', 0, 'paid')]);
    });

    test('should return undefined for a seq the instance does not have', async (repository) => {
      await putChain(repository, 'order-1', 2);

      expect(await repository.get('order-1', 3)).toBeUndefined();
      expect(await repository.get('order-1', 0)).toBeUndefined();
    });

    test('should return the schema, digests and parentSeq exactly as they were put', async (repository) => {
      const first = checkpoint('order-1', 1, { schema: 7, definitionDigest: 'a'.repeat(64) });
      const second = checkpoint('order-1', 5, { parentSeq: 1, schema: 7, definitionDigest: 'b'.repeat(64) });

      await repository.put(first);
      await repository.put(second);

      expectStored(await repository.get('order-1'), second);
      expectStored(await repository.get('order-1', 1), first);
    });

    test('should not change what is stored when the caller mutates the bytes it read', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);

      (await repository.get('order-1'))!.bytes.fill(0);

      expectBytes((await repository.get('order-1'))?.bytes, first!.bytes);
    });
  });
}
