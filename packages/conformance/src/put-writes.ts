import { openCheckpoint, type PutCheckpoint, type Repository, type ScopeRecord } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectBytes,
  expectConflict,
  expectStored,
  expectWrites,
  putChain,
  sealedCheckpoint,
  utf8,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#putWrites`: journal entries filed against a checkpoint, idempotent by (taskId, index). */
export function describePutWrites<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'put-writes.ts');

  describe('Repository#putWrites', () => {
    test('TH-WRITES-01', async (repository) => {
      await putChain(repository, 'order-1', 1);

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('TH-WRITES-02', async (repository) => {
      await putChain(repository, 'order-1', 1);
      // Deliberately not sorted by taskId or index: the order returned is the order filed.
      const writes = [write('ship', 1, 'b'), write('charge', 0, 'a'), write('ship', 0, 'c'), write('audit', 7, 'd')];

      await repository.putWrites('order-1', 1, writes.slice(0, 2));
      await repository.putWrites('order-1', 1, writes.slice(2));

      expectWrites((await repository.get('order-1'))!.writes, writes);
      expectWrites((await repository.list('order-1'))[0]!.writes, writes);
    });

    test('TH-WRITES-03', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'first'), write('charge', 1, 'next')]);

      await repository.putWrites('order-1', 1, [write('ship', 0, 'sent'), write('charge', 0, 'first')]);

      expectWrites((await repository.get('order-1'))!.writes, [
        write('charge', 0, 'first'),
        write('charge', 1, 'next'),
        write('ship', 0, 'sent'),
      ]);
    });

    test('TH-WRITES-04', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await repository.putWrites('order-1', 1, [
        write('charge', 0, 'first'),
        write('ship', 0, 'sent'),
        write('charge', 0, 'first'),
      ]);

      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'first'), write('ship', 0, 'sent')]);
    });

    test('TH-WRITES-05', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const writes = [write('charge', 0, 'a'), write('charge', 1, 'b'), write('ship', 0, 'c')];

      await repository.putWrites('order-1', 1, writes);

      expectWrites((await repository.get('order-1'))!.writes, writes);
    });

    test('TH-WRITES-06', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await repository.putWrites('order-1', 1, []);

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('TH-WRITES-07', async (repository) => {
      await expectConflict(repository.putWrites('missing', 1, [write('charge', 0, 'a')]), 'missing', 1);

      expect(await repository.get('missing')).toBeUndefined();
    });

    test('TH-WRITES-08', async (repository) => {
      await putChain(repository, 'order-1', 2);

      await expectConflict(repository.putWrites('order-1', 3, [write('charge', 0, 'a')]), 'order-1', 3);

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('TH-WRITES-09', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'for seq 1')]);
      await putChain(repository, 'order-2', 1);

      await repository.put(checkpoint('order-1', 2));
      await repository.putWrites('order-1', 2, [write('charge', 0, 'for seq 2')]);

      expectWrites((await repository.get('order-1', 1))!.writes, [write('charge', 0, 'for seq 1')]);
      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'for seq 2')]);
      expect((await repository.get('order-2'))?.writes).toEqual([]);
    });

    test('TH-WRITES-10', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const writes = [
        { taskId: 'nul', index: 0, value: Uint8Array.of(0, 1, 0, 255, 0) },
        { taskId: 'empty', index: 0, value: new Uint8Array(0) },
      ];

      await repository.putWrites('order-1', 1, writes);

      expectWrites((await repository.get('order-1'))!.writes, writes);
    });

    test('TH-WRITES-11', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const writes = [write('发货-🚚', 0, '✓'), write('zahlung-ü', 0, '€')];

      await repository.putWrites('order-1', 1, writes);

      expectWrites((await repository.get('order-1'))!.writes, writes);
    });

    test('TH-WRITES-12', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const value = utf8('result');

      await repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value }]);
      value.fill(0);

      expectBytes((await repository.get('order-1'))!.writes[0]?.value, utf8('result'));
    });

    test('TH-WRITES-13', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'result')]);

      (await repository.get('order-1'))!.writes[0]!.value.fill(0);

      expectBytes((await repository.get('order-1'))!.writes[0]?.value, utf8('result'));
    });

    test('TH-WRITES-14', async (repository) => {
      const first = sealedCheckpoint('order-1', 1, { step: 1 });
      await repository.put(first);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid')]);
      const second = sealedCheckpoint('order-1', 2, { step: 2 });

      // The process dies right after this put is acknowledged: the entries of the next step are never filed.
      await repository.put(second);

      await expectRecoverable(repository, first, second);
    });

    test('TH-WRITES-15', async (repository, store) => {
      const first = sealedCheckpoint('order-1', 1, { step: 1 });
      await repository.put(first);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid')]);
      const second = sealedCheckpoint('order-1', 2, { step: 2 });
      await repository.put(second);

      const reopened = await store.reopen();

      await expectRecoverable(reopened, first, second);
    });
  });
}

/**
 * What a restart finds after a crash between `put(second)` and its `putWrites`: `second` is the latest and
 * loads, with no entries; `first` keeps its own; and the instance goes on from `second`.
 */
async function expectRecoverable(repository: Repository, first: PutCheckpoint, second: PutCheckpoint): Promise<void> {
  const latest = await repository.get('order-1');
  expectStored(latest, second, []);
  const document = openCheckpoint(latest!.bytes, { instanceId: 'order-1', seq: latest!.seq });
  expect({ seq: document.seq, parentSeq: document.parentSeq }).toEqual({ seq: 2, parentSeq: 1 });
  expect((document.body.scopes[0] as ScopeRecord | undefined)?.data).toEqual({ step: 2 });
  expectStored(await repository.get('order-1', 1), first, [write('charge', 0, 'paid')]);
  expect(openCheckpoint((await repository.get('order-1', 1))!.bytes, { instanceId: 'order-1', seq: 1 }).seq).toBe(1);

  await repository.putWrites('order-1', 2, [write('ship', 0, 'sent')]);
  const third = sealedCheckpoint('order-1', 3, { step: 3 });
  await repository.put(third);

  expectStored(await repository.get('order-1'), third);
  expect((await repository.list('order-1')).map(({ seq, writes }) => [seq, writes.length])).toEqual([
    [1, 1],
    [2, 1],
    [3, 0],
  ]);
}
