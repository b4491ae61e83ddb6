import type { ConflictError, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectConflict, expectWrites, putChain, rejectionOf, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** Assert a `ConflictError` at this instance and seq whose message says each of `names`. */
async function expectConflictNaming(
  promise: Promise<unknown>,
  instanceId: string,
  seq: number,
  names: string[],
): Promise<void> {
  const error = await rejectionOf(promise);
  await expectConflict(Promise.reject(error), instanceId, seq);
  for (const name of names) expect((error as ConflictError).message).toContain(name);
}

/**
 * `putWrites` files against the latest checkpoint only (a restore reads no other), and a repeated
 * (taskId, index) must be the same bytes; a refusal files nothing of its call.
 */
export function describeJournalRules<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'journal-rules.ts');

  describe('journal rules', () => {
    test('TH-JOURNAL-01', async (repository) => {
      await putChain(repository, 'order-1', 3);

      for (const seq of [1, 2]) {
        await expectConflictNaming(repository.putWrites('order-1', seq, [write('charge', 0, 'late')]), 'order-1', seq, [
          'latest seq is 3',
        ]);
      }

      expect((await repository.list('order-1')).map(({ writes }) => writes.length)).toEqual([0, 0, 0]);
      await repository.putWrites('order-1', 3, [write('charge', 0, 'late')]);
      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'late')]);
    });

    test('TH-JOURNAL-02', async (repository, store) => {
      await putChain(repository, 'order-1', 1);
      const late = await store.connect();
      const seen = (await late.get('order-1'))!.seq;

      await repository.put(checkpoint('order-1', 2));

      await expectConflictNaming(late.putWrites('order-1', seen, [write('charge', 0, 'late')]), 'order-1', 1, [
        'latest seq is 2',
      ]);
      expect((await repository.get('order-1', 1))?.writes).toEqual([]);
      await late.putWrites('order-1', 2, [write('charge', 0, 'on time')]);
      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'on time')]);
    });

    test('TH-JOURNAL-03', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid')]);

      await expectConflictNaming(
        repository.putWrites('order-1', 1, [write('ship', 0, 'sent'), write('charge', 0, 'refunded')]),
        'order-1',
        1,
        ['"charge"', 'index 0'],
      );

      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'paid')]);
    });

    test('TH-JOURNAL-04', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await expectConflictNaming(
        repository.putWrites('order-1', 1, [
          write('charge', 7, 'paid'),
          write('ship', 0, 'sent'),
          write('charge', 7, 'x'),
        ]),
        'order-1',
        1,
        ['"charge"', 'index 7'],
      );

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('TH-JOURNAL-05', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid')]);
      await expectConflict(repository.putWrites('order-1', 1, [write('charge', 0, 'other')]), 'order-1', 1);

      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid'), write('ship', 0, 'sent')]);
      await repository.put(checkpoint('order-1', 2));
      await repository.putWrites('order-1', 2, [write('charge', 0, 'other')]);

      expectWrites((await repository.get('order-1', 1))!.writes, [
        write('charge', 0, 'paid'),
        write('ship', 0, 'sent'),
      ]);
      expectWrites((await repository.get('order-1'))!.writes, [write('charge', 0, 'other')]);
    });

    test('TH-JOURNAL-06', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const first = Uint8Array.of(1, 0, 2);
      await repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value: first }]);

      for (const value of [Uint8Array.of(1, 0, 3), Uint8Array.of(1, 0), Uint8Array.of(1, 0, 2, 0), new Uint8Array(0)]) {
        await expectConflict(repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value }]), 'order-1', 1);
      }

      await repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value: Uint8Array.of(1, 0, 2) }]);
      expectWrites((await repository.get('order-1'))!.writes, [{ taskId: 'charge', index: 0, value: first }]);
    });

    test('TH-JOURNAL-07', async (repository) => {
      await putChain(repository, 'order-1', 1);
      // More entries than a SQL store binds in one statement: the conflict is the very last entry.
      const entries = Array.from({ length: 5_000 }, (_, i) => write(`task-${4_999 - i}`, i % 3, `value ${i}`));

      await expectConflict(
        repository.putWrites('order-1', 1, [...entries, write('task-4999', 0, 'conflicts with the first')]),
        'order-1',
        1,
      );
      expect((await repository.get('order-1'))?.writes).toEqual([]);

      await repository.putWrites('order-1', 1, [...entries, write('task-4999', 0, 'value 0')]);
      expectWrites((await repository.get('order-1'))!.writes, entries);
    });
  });
}
