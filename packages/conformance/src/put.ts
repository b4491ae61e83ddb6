import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
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
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#put`: optimistic writes, idempotent replays, verbatim bytes. */
export function describePut<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'put.ts');

  describe('Repository#put', () => {
    test('TH-PUT-01', async (repository) => {
      const first = checkpoint('order-1', 1);

      await repository.put(first);

      expectStored(await repository.get('order-1'), first);
    });

    test('TH-PUT-02', async (repository) => {
      await expectConflict(repository.put(checkpoint('order-1', 2, { parentSeq: 1 })), 'order-1', 2);

      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.instances()).toEqual([]);
    });

    test('TH-PUT-03', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2);

      expectStored(await repository.get('order-1'), second!);
    });

    test('TH-PUT-04', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2);

      await expectConflict(repository.put(checkpoint('order-1', 3, { parentSeq: 1 })), 'order-1', 3);

      expectStored(await repository.get('order-1'), second!);
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    });

    test('TH-PUT-05', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await expectConflict(repository.put(checkpoint('order-1', 3, { parentSeq: 2 })), 'order-1', 3);

      expect((await repository.get('order-1'))?.seq).toBe(1);
    });

    test('TH-PUT-06', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await expectConflict(repository.put(checkpoint('order-1', 2, { parentSeq: null })), 'order-1', 2);
    });

    test('TH-PUT-07', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      const replay = { ...first!, bytes: new Uint8Array(first!.bytes) };

      await repository.put(replay);

      expectStored(await repository.get('order-1'), second!);
      expectStored(await repository.get('order-1', 1), first!);
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    });

    test('TH-PUT-08', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);

      await expectConflict(repository.put(checkpoint('order-1', 1, { note: 'other writer' })), 'order-1', 1);

      expectStored(await repository.get('order-1', 1), first!);
    });

    test('TH-PUT-09', async (repository) => {
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

    test('TH-PUT-10', async (repository) => {
      const mine = checkpoint('order-1', 1, { note: 'mine' });
      const theirs = checkpoint('order-1', 1, { note: 'theirs' });

      const outcomes = await Promise.allSettled([repository.put(mine), repository.put(theirs)]);

      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const rejected = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      await expectConflict(Promise.reject(rejected.reason), 'order-1', 1);
      expect(await repository.list('order-1')).toHaveLength(1);
    });

    test('TH-PUT-11', async (repository) => {
      const bytes = new Uint8Array(512);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
      const first = checkpoint('order-1', 1, { bytes: Uint8Array.of(0, 0, ...bytes, 0) });

      await repository.put(first);

      expectBytes((await repository.get('order-1'))?.bytes, first.bytes);
    });

    test('TH-PUT-12', async (repository) => {
      const first = checkpoint('order-1', 1, { bytes: binaryBytes(1024 * 1024) });

      await repository.put(first);

      expectBytes((await repository.get('order-1'))?.bytes, first.bytes);
      expectBytes((await repository.list('order-1'))[0]?.bytes, first.bytes);
    });

    test('TH-PUT-13', async (repository) => {
      const bytes = utf8('{"seq":1}');
      const original = new Uint8Array(bytes);

      await repository.put(checkpoint('order-1', 1, { bytes }));
      bytes.fill(0x21);

      expectBytes((await repository.get('order-1'))?.bytes, original);
    });

    test('TH-PUT-14', async (repository) => {
      const instanceId = 'заказ-注文-🚚-ñ';
      await putChain(repository, 'родитель-👪', 1);
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
      expect(await repository.instances({ parentId: 'родитель-👪' })).toMatchObject([
        { ...first.meta, instanceId, latestSeq: 1, definitionDigest: 'δ-🔒' },
      ]);
    });

    test('TH-PUT-15', async (repository) => {
      const [a] = await putChain(repository, 'order-a', 1);
      const [, b] = await putChain(repository, 'order-b', 2);

      expectStored(await repository.get('order-a'), a!);
      expectStored(await repository.get('order-b'), b!);
      expect(await repository.get('order-a', 2)).toBeUndefined();
    });

    test('TH-PUT-16', async (repository) => {
      await putChain(repository, 'order-1', 2);
      let promise: Promise<unknown> | undefined;

      expect(() => {
        promise = repository.put(checkpoint('order-1', 3, { parentSeq: 1 }));
      }).not.toThrow();

      expect(await rejectionOf(promise!)).toBeDefined();
    });

    test('TH-PUT-17', async (repository) => {
      await repository.put(checkpoint('order-1', 1));
      await repository.put(checkpoint('order-1', 5, { parentSeq: 1 }));

      await expectConflict(repository.put(checkpoint('order-1', 3, { parentSeq: 5 })), 'order-1', 3);

      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 5]);
    });

    test('TH-PUT-18', async (repository, store) => {
      await putChain(repository, 'order-1', 1);
      const other = await store.connect();
      const mine = checkpoint('order-1', 2, { note: 'mine' });
      const theirs = checkpoint('order-1', 2, { note: 'theirs' });

      const outcomes = await Promise.allSettled([repository.put(mine), other.put(theirs)]);

      const winners = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [[mine, theirs][i]!] : []));
      expect(winners).toHaveLength(1);
      const rejected = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      await expectConflict(Promise.reject(rejected.reason), 'order-1', 2);
      expectStored(await repository.get('order-1'), winners[0]!);
      expectStored(await other.get('order-1'), winners[0]!);
      expect((await other.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    });

    test('TH-PUT-19', async (repository) => {
      const first = checkpoint('order-1', 1, { bytes: binaryBytes(10 * 1024 * 1024) });

      await repository.put(first);

      expectBytes((await repository.get('order-1'))?.bytes, first.bytes);
    });

    test('TH-PUT-20', async (repository) => {
      const text =
        'Bestellung \u{1F4E6} \u2014 \u6CE8\u6587 \u05E9\u05DC\u05D5\u05DD e\u0301 \u{1D11E} \u{1F469}\u200D\u{1F469}\u200D\u{1F467}';
      const instanceId = `order-${text}`;
      const bytes = utf8(JSON.stringify({ customer: text, items: ['\u{1F9FE}', '\u00FC\u00DF', '\uFFFD\uFEFF'] }));
      const entries = [write(`task-\u{1F69A}`, 0, text), write('task-\u00FC', 1, '\u{1F600}\u0000\u{10FFFF}')];
      const first = checkpoint(instanceId, 1, { bytes });
      await repository.put(first);

      await repository.putWrites(instanceId, 1, entries);

      expectStored(await repository.get(instanceId), first, entries);
      expectStored((await repository.list(instanceId))[0], first, entries);
      expect(new TextDecoder().decode((await repository.get(instanceId))!.writes[0]!.value)).toBe(text);
    });
  });
}
