import { describe, expect } from 'vitest';
import type { Repository } from '../repository.js';
import {
  checkpoint,
  contractTest,
  expectBytes,
  expectConflict,
  expectWrites,
  putChain,
  utf8,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#putWrites`: journal entries filed against a checkpoint, idempotent by (taskId, index). */
export function describePutWrites<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer);

  describe('Repository#putWrites', () => {
    test('should start a new checkpoint with no writes', async (repository) => {
      await putChain(repository, 'order-1', 1);

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('should return filed writes with their checkpoint in insertion order', async (repository) => {
      await putChain(repository, 'order-1', 1);
      // Deliberately not sorted by taskId or index: the order returned is the order filed.
      const writes = [write('ship', 1, 'b'), write('charge', 0, 'a'), write('ship', 0, 'c'), write('audit', 7, 'd')];

      await repository.putWrites('order-1', 1, writes.slice(0, 2));
      await repository.putWrites('order-1', 1, writes.slice(2));

      expectWrites((await repository.get('order-1'))!.writes, writes);
      expectWrites((await repository.list('order-1'))[0]!.writes, writes);
    });

    test('should ignore a repeated (taskId, index) entry and keep the first bytes', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'first')]);

      await repository.putWrites('order-1', 1, [write('charge', 0, 'second'), write('charge', 1, 'next')]);

      expectWrites((await repository.get('order-1'))!.writes, [
        write('charge', 0, 'first'),
        write('charge', 1, 'next'),
      ]);
    });

    test('should ignore a repeated (taskId, index) entry within one call', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await repository.putWrites('order-1', 1, [write('charge', 0, 'first'), write('charge', 0, 'again')]);

      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'first')]);
    });

    test('should keep entries that share only a taskId or only an index', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const writes = [write('charge', 0, 'a'), write('charge', 1, 'b'), write('ship', 0, 'c')];

      await repository.putWrites('order-1', 1, writes);

      expectWrites((await repository.get('order-1'))!.writes, writes);
    });

    test('should accept an empty list of writes', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await repository.putWrites('order-1', 1, []);

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('should refuse writes for an instance that has no checkpoint with a ConflictError', async (repository) => {
      await expectConflict(repository.putWrites('missing', 1, [write('charge', 0, 'a')]), 'missing', 1);

      expect(await repository.get('missing')).toBeUndefined();
    });

    test('should refuse writes against a seq the instance does not have with a ConflictError', async (repository) => {
      await putChain(repository, 'order-1', 2);

      await expectConflict(repository.putWrites('order-1', 3, [write('charge', 0, 'a')]), 'order-1', 3);

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('should keep writes attached to the checkpoint they were filed against', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'for seq 1')]);
      await putChain(repository, 'order-2', 1);

      await repository.put(checkpoint('order-1', 2));
      await repository.putWrites('order-1', 2, [write('charge', 0, 'for seq 2')]);

      expectWrites((await repository.get('order-1', 1))!.writes, [write('charge', 0, 'for seq 1')]);
      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'for seq 2')]);
      expect((await repository.get('order-2'))?.writes).toEqual([]);
    });

    test('should keep write values verbatim, including 0x00 bytes and an empty value', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const writes = [
        { taskId: 'nul', index: 0, value: Uint8Array.of(0, 1, 0, 255, 0) },
        { taskId: 'empty', index: 0, value: new Uint8Array(0) },
      ];

      await repository.putWrites('order-1', 1, writes);

      expectWrites((await repository.get('order-1'))!.writes, writes);
    });

    test('should keep unicode and emoji task ids verbatim', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const writes = [write('发货-🚚', 0, '✓'), write('zahlung-ü', 0, '€')];

      await repository.putWrites('order-1', 1, writes);

      expectWrites((await repository.get('order-1'))!.writes, writes);
    });

    test('should not change what is stored when the caller mutates a value after putWrites', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const value = utf8('result');

      await repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value }]);
      value.fill(0);

      expectBytes((await repository.get('order-1'))!.writes[0]?.value, utf8('result'));
    });

    test('should not change what is stored when the caller mutates a value it read', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'result')]);

      (await repository.get('order-1'))!.writes[0]!.value.fill(0);

      expectBytes((await repository.get('order-1'))!.writes[0]?.value, utf8('result'));
    });
  });
}
