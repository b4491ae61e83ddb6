import type { PutCheckpoint, Repository, RewriteCheckpoint } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  binaryBytes,
  checkpoint,
  contractTest,
  expectBytes,
  expectConflict,
  expectStored,
  logged,
  putChain,
  rejectionOf,
  utf8,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

interface MigrationOptions {
  bytes?: Uint8Array;
  /** Distinguishes two rewrites of the same checkpoint when `bytes` is not given. */
  note?: string;
  schema?: number;
}

/** A rewrite of `stored` to a newer schema: new bytes and digest, expecting the digest it was put with. */
function migration(stored: PutCheckpoint, options: MigrationOptions = {}): RewriteCheckpoint {
  const { instanceId, seq } = stored;
  const note = options.note ?? 'migrated';
  const schema = options.schema ?? stored.schema + 1;
  return {
    instanceId,
    seq,
    expectedDigest: stored.digest,
    schema,
    digest: `digest:${instanceId}:${seq}:${note}:schema-${schema}`,
    bytes: options.bytes ?? utf8(JSON.stringify({ instanceId, seq, note, schema })),
  };
}

/** What a store returns for `stored` once `rewrite` landed: the new document, everything else as put. */
function rewritten(stored: PutCheckpoint, rewrite: RewriteCheckpoint): PutCheckpoint {
  return { ...stored, schema: rewrite.schema, digest: rewrite.digest, bytes: rewrite.bytes };
}

/** `Repository#rewrite`: schema migrations in place, guarded by a compare-and-swap on the stored digest. */
export function describeRewrite<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'rewrite.ts');

  describe('Repository#rewrite', () => {
    test('TH-REWRITE-01', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      const change = migration(second!);

      await repository.rewrite(change);

      expectStored(await repository.get('order-1'), rewritten(second!, change));
      expectStored(await repository.get('order-1', 2), rewritten(second!, change));
      const listed = await repository.list('order-1');
      expect(listed.map(({ seq }) => seq)).toEqual([1, 2]);
      expectStored(listed[0], first!);
      expectStored(listed[1], rewritten(second!, change));
    });

    test('TH-REWRITE-02', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2, {
        definitionDigest: 'd'.repeat(64),
        meta: { businessKey: 'po-7', status: 'completed' },
      });
      const writes = [write('charge', 0, 'paid'), write('ship', 0, 'sent'), write('charge', 1, 'refunded')];
      await repository.putWrites('order-1', 2, writes);
      const summary = await repository.instances();
      const change = migration(second!);

      await repository.rewrite(change);

      expectStored(await repository.get('order-1'), rewritten(second!, change), writes);
      expectStored((await repository.list('order-1'))[1], rewritten(second!, change), writes);
      expect(await repository.instances()).toEqual(summary);
      expect(await repository.instances({ status: 'completed' })).toEqual(summary);
    });

    test('TH-REWRITE-03', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid')]);
      const change = migration(first!);
      await repository.rewrite(change);

      // The repeat has the same bytes: a no-op (a different value would be a ConflictError).
      await repository.putWrites('order-1', 1, [write('charge', 0, 'paid'), write('ship', 0, 'sent')]);

      expectStored(await repository.get('order-1'), rewritten(first!, change), [
        write('charge', 0, 'paid'),
        write('ship', 0, 'sent'),
      ]);
    });

    test('TH-REWRITE-04', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      await repository.putWrites('order-1', 2, [write('charge', 0, 'paid')]);
      const summary = await repository.instances();

      await expectConflict(
        repository.rewrite({ ...migration(second!), expectedDigest: 'digest:someone-else' }),
        'order-1',
        2,
      );

      expectStored(await repository.get('order-1'), second!, [write('charge', 0, 'paid')]);
      expectStored(await repository.get('order-1', 1), first!);
      expect(await repository.instances()).toEqual(summary);
    });

    test('TH-REWRITE-05', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const mine = migration(first!, { note: 'mine' });
      const theirs = migration(first!, { note: 'theirs' });
      await repository.rewrite(mine);

      await expectConflict(repository.rewrite(theirs), 'order-1', 1);

      expectStored(await repository.get('order-1'), rewritten(first!, mine));
    });

    test('TH-REWRITE-06', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const mine = migration(first!, { note: 'mine' });
      const theirs = migration(first!, { note: 'theirs' });

      const outcomes = await Promise.allSettled([repository.rewrite(mine), repository.rewrite(theirs)]);

      const winners = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [[mine, theirs][i]!] : []));
      expect(winners).toHaveLength(1);
      const rejected = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      await expectConflict(Promise.reject(rejected.reason), 'order-1', 1);
      expectStored(await repository.get('order-1'), rewritten(first!, winners[0]!));
    });

    test('TH-REWRITE-07', async (repository) => {
      const stored = checkpoint('missing', 1);

      await expectConflict(repository.rewrite(migration(stored)), 'missing', 1);

      expect(await repository.get('missing')).toBeUndefined();
      expect(await repository.list('missing')).toEqual([]);
      expect(await repository.instances()).toEqual([]);
    });

    test('TH-REWRITE-08', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      const summary = await repository.instances();

      await expectConflict(repository.rewrite(migration(checkpoint('order-1', 3))), 'order-1', 3);
      await expectConflict(repository.rewrite({ ...migration(second!), seq: 0 }), 'order-1', 0);

      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
      expectStored(await repository.get('order-1', 1), first!);
      expectStored(await repository.get('order-1'), second!);
      expect(await repository.instances()).toEqual(summary);
    });

    test('TH-REWRITE-09', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      await repository.delete('order-1');

      await expectConflict(repository.rewrite(migration(first!)), 'order-1', 1);

      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.instances()).toEqual([]);
    });

    test('TH-REWRITE-10', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      await repository.putWrites('order-1', 2, [write('charge', 0, 'paid')]);
      const summary = await repository.instances();

      await repository.rewrite({
        instanceId: 'order-1',
        seq: 2,
        expectedDigest: second!.digest,
        schema: second!.schema,
        digest: second!.digest,
        bytes: new Uint8Array(second!.bytes),
      });

      expectStored(await repository.get('order-1'), second!, [write('charge', 0, 'paid')]);
      expectStored(await repository.get('order-1', 1), first!);
      expect(await repository.instances()).toEqual(summary);
    });

    test('TH-REWRITE-11', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const change = migration(first!);
      await repository.rewrite(change);

      // The retry still expects the digest it replaced: its own bytes are stored, so it is not a conflict.
      await repository.rewrite({ ...change, bytes: new Uint8Array(change.bytes) });

      expectStored(await repository.get('order-1'), rewritten(first!, change));
    });

    test('TH-REWRITE-12', async (repository) => {
      const [first, second, third] = await putChain(repository, 'order-1', 3);
      const summary = await repository.instances();
      const change = migration(first!);

      await repository.rewrite(change);

      expectStored(await repository.get('order-1'), third!);
      expectStored(await repository.get('order-1', 1), rewritten(first!, change));
      expectStored(await repository.get('order-1', 2), second!);
      expect((await repository.list('order-1')).map(({ seq, digest }) => ({ seq, digest }))).toEqual([
        { seq: 1, digest: change.digest },
        { seq: 2, digest: second!.digest },
        { seq: 3, digest: third!.digest },
      ]);
      expect(await repository.instances()).toEqual(summary);
      expect(summary[0]?.latestSeq).toBe(3);
    });

    test('TH-REWRITE-13', async (repository) => {
      const chain = await putChain(repository, 'order-1', 3);
      const changes = chain.map((stored) => migration(stored));

      for (const change of changes) await repository.rewrite(change);

      const listed = await repository.list('order-1');
      expect(listed).toHaveLength(3);
      listed.forEach((stored, i) => {
        expectStored(stored, rewritten(chain[i]!, changes[i]!));
      });
    });

    test('TH-REWRITE-14', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2);
      const change = migration(second!);
      await repository.rewrite(change);
      const third = checkpoint('order-1', 3, { parentSeq: 2, schema: change.schema });

      await repository.put(third);

      expectStored(await repository.get('order-1'), third);
      expectStored(await repository.get('order-1', 2), rewritten(second!, change));
      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2, 3]);
      expect((await repository.instances())[0]?.latestSeq).toBe(3);
    });

    test('TH-REWRITE-15', async (repository) => {
      const [, second] = await putChain(repository, 'order-1', 2);
      const change = migration(second!);
      await repository.rewrite(change);

      await repository.put(rewritten(second!, change));
      await expectConflict(repository.put(second!), 'order-1', 2);

      expectStored(await repository.get('order-1'), rewritten(second!, change));
    });

    test('TH-REWRITE-16', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const bytes = Uint8Array.of(0, 0, ...binaryBytes(4096), 0);
      const change = migration(first!, { bytes });

      await repository.rewrite(change);

      expectBytes((await repository.get('order-1'))?.bytes, bytes);
      expectBytes((await repository.list('order-1'))[0]?.bytes, bytes);
    });

    test('TH-REWRITE-17', async (repository) => {
      const first = checkpoint('order-1', 1, { bytes: Uint8Array.of(0x7b, 0x00, 0x01) });
      await repository.put(first);
      const change = migration(first, { bytes: Uint8Array.of(0x7b, 0x00, 0x02) });

      await repository.rewrite(change);

      expectStored(await repository.get('order-1'), rewritten(first, change));
    });

    test('TH-REWRITE-18', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const bytes = utf8('{"seq":1,"schema":2}');
      const original = new Uint8Array(bytes);

      await repository.rewrite(migration(first!, { bytes }));
      bytes.fill(0x21);

      expectBytes((await repository.get('order-1'))?.bytes, original);
    });

    test('TH-REWRITE-19', async (repository) => {
      const [a] = await putChain(repository, 'order-a', 1);
      const [b] = await putChain(repository, 'order-b', 1);
      const change = migration(a!);

      await repository.rewrite(change);

      expectStored(await repository.get('order-a'), rewritten(a!, change));
      expectStored(await repository.get('order-b'), b!);
    });

    test('TH-REWRITE-20', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      let promise: Promise<void> | undefined;

      expect(() => {
        promise = repository.rewrite({ ...migration(first!), expectedDigest: 'digest:stale' });
      }).not.toThrow();

      expect(await rejectionOf(promise!)).toBeDefined();
    });

    test('TH-REWRITE-21', async (repository) => {
      const [first, second] = await putChain(repository, 'order-1', 2);
      await repository.put(logged('order-2', 1));
      const [before] = await repository.history();

      await repository.rewrite({ ...migration(first!), log: utf8('past of seq 1') });
      await repository.rewrite({ ...migration(second!), log: utf8('past of seq 2') });
      // A rewrite of a checkpoint whose put filed an entry keeps that entry.
      const [logged2] = await repository.list('order-2');
      await repository.rewrite({ ...migration(logged('order-2', 1)), log: utf8('other') });

      const entries = await repository.history();
      expect(entries.map(({ instanceId, seq }) => `${instanceId}@${seq}`)).toEqual([
        'order-2@1',
        'order-1@1',
        'order-1@2',
      ]);
      expect(entries[0]!.position).toBe(before!.position);
      expectBytes(entries[1]!.bytes, utf8('past of seq 1'));
      expectBytes((await repository.get('order-1', 2))!.log!, utf8('past of seq 2'));
      expectBytes((await repository.get('order-2', 1))!.log!, logged2!.log!);
    });
  });
}
