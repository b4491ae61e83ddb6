import { CorruptCheckpointError, openCheckpoint, type Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectBytes,
  expectStored,
  putAll,
  putChain,
  putChainWithWrites,
  sealedCheckpoint,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#get` and `getMany`: the latest checkpoint or one seq, with its writes. */
export function describeGet<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'get.ts');

  describe('Repository#get', () => {
    test('TH-GET-01', async (repository) => {
      expect(await repository.get('missing')).toBeUndefined();
      expect(await repository.get('missing', 1)).toBeUndefined();
    });

    test('TH-GET-02', async (repository) => {
      const [, , third] = await putChain(repository, 'order-1', 3);
      await repository.putWrites('order-1', 3, [write('charge', 0, 'paid')]);

      expectStored(await repository.get('order-1'), third!, [write('charge', 0, 'paid')]);
    });

    test('TH-GET-03', async (repository) => {
      const [, second] = await putChainWithWrites(repository, 'order-1', 3, { 2: [write('charge', 0, 'paid')] });

      expectStored(await repository.get('order-1', 2), second!, [write('charge', 0, 'paid')]);
    });

    test('TH-GET-04', async (repository) => {
      await putChain(repository, 'order-1', 2);

      expect(await repository.get('order-1', 3)).toBeUndefined();
      expect(await repository.get('order-1', 0)).toBeUndefined();
    });

    test('TH-GET-05', async (repository) => {
      const first = checkpoint('order-1', 1, { schema: 7, definitionDigest: 'a'.repeat(64) });
      const second = checkpoint('order-1', 5, { parentSeq: 1, schema: 7, definitionDigest: 'b'.repeat(64) });

      await repository.put(first);
      await repository.put(second);

      expectStored(await repository.get('order-1'), second);
      expectStored(await repository.get('order-1', 1), first);
    });

    test('TH-GET-06', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);

      (await repository.get('order-1'))!.bytes.fill(0);

      expectBytes((await repository.get('order-1'))?.bytes, first!.bytes);
    });

    test('TH-GET-07', async (repository) => {
      const sealed = sealedCheckpoint('order-1', 1, { amount: 100 });
      const tampered = { ...sealed, bytes: alterAmount(sealed.bytes) };

      await repository.put(tampered);

      const stored = await repository.get('order-1');
      expectBytes(stored?.bytes, tampered.bytes);
      expectCorrupt(() => openCheckpoint(stored!.bytes, { instanceId: 'order-1', seq: 1 }), 'order-1', 1);
    });

    test('TH-GET-08', async (repository, store) => {
      const sealed = sealedCheckpoint('order-1', 1, { amount: 100 });
      await repository.put(sealed);
      expect(openCheckpoint((await repository.get('order-1'))!.bytes, { instanceId: 'order-1', seq: 1 }).seq).toBe(1);

      await store.alterStoredBytes('order-1', 1, alterAmount);

      const stored = await repository.get('order-1');
      expectBytes(stored?.bytes, alterAmount(sealed.bytes));
      expectBytes((await repository.list('order-1'))[0]?.bytes, alterAmount(sealed.bytes));
      expectCorrupt(() => openCheckpoint(stored!.bytes, { instanceId: 'order-1', seq: 1 }), 'order-1', 1);
    });

    test('TH-GET-09', async (repository) => {
      const [, a2] = await putChainWithWrites(repository, 'order-a', 2, { 2: [write('charge', 0, 'paid')] });
      const [b1] = await putChain(repository, 'order-b', 1);
      const [, , c3] = await putChainWithWrites(repository, 'order-c', 3, {
        3: [write('ship', 0, 'sent'), write('charge', 1, 'refunded')],
      });

      const stored = await repository.getMany(['order-c', 'order-a', 'order-b']);

      expect(stored.map(({ instanceId }) => instanceId)).toEqual(['order-c', 'order-a', 'order-b']);
      expectStored(stored[0], c3!, [write('ship', 0, 'sent'), write('charge', 1, 'refunded')]);
      expectStored(stored[1], a2!, [write('charge', 0, 'paid')]);
      expectStored(stored[2], b1!);
    });

    test('TH-GET-10', async (repository) => {
      await putChain(repository, 'order-a', 1);
      await putChain(repository, 'order-b', 2);

      const stored = await repository.getMany(['order-b', 'missing', 'order-a', 'order-b', '\ud800', '']);

      expect(stored.map(({ instanceId, seq }) => [instanceId, seq])).toEqual([
        ['order-b', 2],
        ['order-a', 1],
      ]);
      expect(await repository.getMany([])).toEqual([]);
    });

    test('TH-GET-11', async (repository) => {
      const ids = Array.from({ length: 600 }, (_, i) => `order-${String(i).padStart(4, '0')}`);
      await putAll(
        repository,
        ids.map((id) => checkpoint(id, 1)),
      );
      const asked = [...ids].reverse();

      const stored = await repository.getMany(asked);

      expect(stored.map(({ instanceId }) => instanceId)).toEqual(asked);
      for (const [index, id] of asked.entries()) expectStored(stored[index], checkpoint(id, 1));
    });
  });
}

/** The same document with the amount 100 changed to 900: still well-formed, but no longer what was sealed. */
function alterAmount(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  const altered = text.replace('"amount":100', '"amount":900');
  expect(altered, 'the document should hold the amount to alter').not.toBe(text);
  return new TextEncoder().encode(altered);
}

function expectCorrupt(load: () => unknown, instanceId: string, seq: number): void {
  let error: unknown;
  try {
    load();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(CorruptCheckpointError);
  expect(error).toMatchObject({ code: 'THRESHER_CORRUPT_CHECKPOINT', instanceId, seq });
}
