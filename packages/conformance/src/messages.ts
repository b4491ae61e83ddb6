import type { BufferedMessage, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { binaryBytes, checkpoint, contractTest, expectBytes, rejectionOf, utf8 } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

/** A message published at `T0 + offset`, living an hour unless told otherwise. */
function message(id: string, overrides: Partial<BufferedMessage> = {}): BufferedMessage {
  const publishedAt = overrides.publishedAt ?? T0;
  return {
    id,
    name: 'payment',
    correlationKey: 'po-1',
    variables: utf8(JSON.stringify({ id })),
    publishedAt,
    expiresAt: publishedAt + HOUR,
    ...overrides,
  };
}

/** Assert a taken message is exactly the one put, variables byte for byte. */
function expectMessage(actual: BufferedMessage | undefined, expected: BufferedMessage): void {
  expect(actual).toBeDefined();
  const { variables, ...fields } = actual!;
  const { variables: expectedVariables, ...expectedFields } = expected;
  expect(fields).toEqual(expectedFields);
  expectBytes(variables, expectedVariables);
}

/** The ids a taker gets by taking until nothing is left, deleting each as a delivering taker does. */
async function drain(repository: Repository, name: string, key: string | null, now: number, taker = 'instance-a') {
  const ids: string[] = [];
  for (;;) {
    const taken = await repository.takeMessage(name, key, now, taker);
    if (taken === undefined) return ids;
    ids.push(taken.id);
    expect(await repository.deleteMessage(taken.id)).toBe(true);
  }
}

/** `putMessage`, `takeMessage`, `deleteMessage`, `expireMessages`: messages buffered before their subscription. */
export function describeMessages<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'messages.ts');

  describe('Repository#putMessage / takeMessage / deleteMessage / expireMessages', () => {
    test('TH-MSG-01', async (repository) => {
      const put = message('msg-1', { variables: binaryBytes(4096), correlationKey: 'po-1' });
      const caller = new Uint8Array(put.variables);
      expect(await repository.putMessage({ ...put, variables: caller })).toBe(true);
      caller.fill(0xaa);

      const taken = await repository.takeMessage('payment', 'po-1', T0, 'instance-a');

      expectMessage(taken, put);
      taken!.variables.fill(0xbb);
      expectMessage(await repository.takeMessage('payment', 'po-1', T0, 'instance-a'), put);
      const empty = message('msg-2', { variables: new Uint8Array(0), correlationKey: 'po-2' });
      await repository.putMessage(empty);
      expectMessage(await repository.takeMessage('payment', 'po-2', T0, 'instance-a'), empty);
    });

    test('TH-MSG-02', async (repository) => {
      await repository.putMessage(message('b-late', { publishedAt: T0 + 20 }));
      await repository.putMessage(message('z-tie', { publishedAt: T0 + 10 }));
      await repository.putMessage(message('\u{1F600}-tie', { publishedAt: T0 + 10 }));
      await repository.putMessage(message('\uFF21-tie', { publishedAt: T0 + 10 }));
      await repository.putMessage(message('a-tie', { publishedAt: T0 + 10 }));
      await repository.putMessage(message('y-first', { publishedAt: T0 }));

      // Ties by code point: U+FF21 sorts before U+1F600, as UTF-8 bytes compare.
      expect(await drain(repository, 'payment', 'po-1', T0 + 30)).toEqual([
        'y-first',
        'a-tie',
        'z-tie',
        '\uFF21-tie',
        '\u{1F600}-tie',
        'b-late',
      ]);
    });

    test('TH-MSG-03', async (repository) => {
      await repository.putMessage(message('unkeyed', { correlationKey: null }));
      await repository.putMessage(message('empty-key', { correlationKey: '' }));
      await repository.putMessage(message('keyed', { correlationKey: 'po-1' }));
      await repository.putMessage(message('other-name', { name: 'refund', correlationKey: 'po-1' }));

      expect(await repository.takeMessage('payment', 'po-2', T0, 'instance-a')).toBeUndefined();
      expect(await repository.takeMessage('Payment', 'po-1', T0, 'instance-a')).toBeUndefined();
      expect(await drain(repository, 'payment', null, T0)).toEqual(['unkeyed']);
      expect(await drain(repository, 'payment', '', T0)).toEqual(['empty-key']);
      expect(await drain(repository, 'payment', 'po-1', T0)).toEqual(['keyed']);
      expect(await drain(repository, 'refund', 'po-1', T0)).toEqual(['other-name']);
    });

    test('TH-MSG-04', async (repository) => {
      await repository.putMessage(message('expires-at-now', { expiresAt: T0 + 100 }));
      await repository.putMessage(message('expired', { expiresAt: T0 + 50 }));
      await repository.putMessage(message('alive', { publishedAt: T0 + 1, expiresAt: T0 + 101 }));

      expect(await drain(repository, 'payment', 'po-1', T0 + 100)).toEqual(['alive']);
      expect(await repository.takeMessage('payment', 'po-1', T0, 'instance-a')).toMatchObject({
        id: 'expired',
      });
    });

    test('TH-MSG-05', async (repository) => {
      await repository.putMessage(message('expired', { expiresAt: T0 + 10 }));
      await repository.putMessage(message('expires-at-now', { expiresAt: T0 + 20 }));
      await repository.putMessage(message('held-expired', { correlationKey: 'po-2', expiresAt: T0 + 15 }));
      await repository.putMessage(message('alive', { expiresAt: T0 + 21 }));
      await repository.putMessage(message('held-alive', { correlationKey: 'po-3', expiresAt: T0 + 30 }));
      await repository.takeMessage('payment', 'po-2', T0, 'instance-a');
      await repository.takeMessage('payment', 'po-3', T0, 'instance-a');

      expect(await repository.expireMessages(T0)).toBe(0);
      expect(await repository.expireMessages(T0 + 20)).toBe(3);
      expect(await repository.expireMessages(T0 + 20)).toBe(0);

      expect(await repository.takeMessage('payment', 'po-2', T0, 'instance-a')).toBeUndefined();
      expect(await drain(repository, 'payment', 'po-1', T0)).toEqual(['alive']);
      expect(await drain(repository, 'payment', 'po-3', T0 + 25)).toEqual(['held-alive']);
    });

    test('TH-MSG-06', async (repository) => {
      const first = message('msg-1', { variables: utf8('first') });

      expect(await repository.putMessage(first)).toBe(true);
      expect(
        await repository.putMessage(
          message('msg-1', { variables: utf8('second'), correlationKey: 'po-2', publishedAt: T0 - 5 }),
        ),
      ).toBe(false);
      expect(await repository.putMessage(first)).toBe(false);

      expect(await repository.takeMessage('payment', 'po-2', T0, 'instance-a')).toBeUndefined();
      expectMessage(await repository.takeMessage('payment', 'po-1', T0, 'instance-a'), first);
      // Held, or expired and not yet deleted: still stored, so still a no-op.
      expect(await repository.putMessage(first)).toBe(false);
      await repository.putMessage(message('old', { expiresAt: T0 - 1 }));
      expect(await repository.putMessage(message('old'))).toBe(false);
    });

    test('TH-MSG-07', async (repository) => {
      await repository.putMessage(message('held', { publishedAt: T0 + 5, expiresAt: T0 + 10 }));

      expect((await repository.takeMessage('payment', 'po-1', T0, 'instance-a'))?.id).toBe('held');
      expect(await repository.takeMessage('payment', 'po-1', T0, 'instance-b')).toBeUndefined();

      // An older message arrives, and the held one expires: the taker still gets its held message first.
      await repository.putMessage(message('older', { publishedAt: T0 - 5 }));
      expect((await repository.takeMessage('payment', 'po-1', T0 + 60, 'instance-a'))?.id).toBe('held');
      expect((await repository.takeMessage('payment', 'po-1', T0 + 60, 'instance-a'))?.id).toBe('held');
      expect((await repository.takeMessage('payment', 'po-1', T0 + 60, 'instance-b'))?.id).toBe('older');
      expect(await repository.takeMessage('payment', 'po-1', T0 + 60, 'instance-c')).toBeUndefined();
      // Held only under its own name and key.
      expect(await repository.takeMessage('payment', 'po-2', T0 + 60, 'instance-a')).toBeUndefined();
    });

    test('TH-MSG-08', async (repository) => {
      const put = message('msg-1');
      await repository.putMessage(put);
      await repository.takeMessage('payment', 'po-1', T0, 'instance-a');

      expect(await repository.deleteMessage('msg-1')).toBe(true);
      expect(await repository.deleteMessage('msg-1')).toBe(false);
      expect(await repository.deleteMessage('never-put')).toBe(false);
      expect(await repository.takeMessage('payment', 'po-1', T0, 'instance-a')).toBeUndefined();

      // Not held: deleted all the same. Deleted: its id may be put again.
      await repository.putMessage(message('msg-2'));
      expect(await repository.deleteMessage('msg-2')).toBe(true);
      expect(await repository.putMessage(put)).toBe(true);
      expectMessage(await repository.takeMessage('payment', 'po-1', T0, 'instance-b'), put);
    });

    test('TH-MSG-09', async (repository) => {
      await repository.putMessage(message('only'));

      const taken = await Promise.all(
        ['instance-a', 'instance-b', 'instance-c', 'instance-d'].map((taker) =>
          repository.takeMessage('payment', 'po-1', T0, taker),
        ),
      );

      expect(taken.filter((entry) => entry !== undefined).map((entry) => entry!.id)).toEqual(['only']);
    });

    test('TH-MSG-10', async (repository, store) => {
      const ids = Array.from({ length: 30 }, (_, i) => `msg-${String(i).padStart(2, '0')}`);
      for (const [i, id] of ids.entries()) await repository.putMessage(message(id, { publishedAt: T0 + i }));
      const other = await store.connect();

      const takers = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? repository : other).takeMessage('payment', 'po-1', T0 + 100, `instance-${i}`),
      );
      const taken = (await Promise.all(takers)).filter((entry) => entry !== undefined).map((entry) => entry!.id);

      expect(taken.sort()).toEqual(ids);
    });

    test('TH-MSG-11', async (repository) => {
      const name = 'Zahlung \u{1F4B6} \u6CE8\u6587';
      const key = 'kunde-\u00FC-\u{1F9FE}-e\u0301';
      const put = message('nachricht-\u{1F69A}', { name, correlationKey: key });
      await repository.putMessage(put);

      expect(await repository.takeMessage(name, 'kunde-\u00FC-\u{1F9FE}-\u00E9', T0, 'instance-a')).toBeUndefined();
      expect(await repository.takeMessage(name.toUpperCase(), key, T0, 'instance-a')).toBeUndefined();
      expectMessage(await repository.takeMessage(name, key, T0, 'taker-\u{1F600}'), put);
      expect(await repository.takeMessage(name, key, T0, 'taker-\u{1F601}')).toBeUndefined();
      expect((await repository.takeMessage(name, key, T0, 'taker-\u{1F600}'))?.id).toBe(put.id);
      expect(await repository.deleteMessage(put.id)).toBe(true);
    });

    test('TH-MSG-12', async (repository, store) => {
      const held = message('held', { correlationKey: 'po-1' });
      const free = message('free', { correlationKey: 'po-2', variables: binaryBytes(512) });
      await repository.putMessage(held);
      await repository.putMessage(free);
      await repository.takeMessage('payment', 'po-1', T0, 'instance-a');

      const reopened = await store.reopen();

      expect(await reopened.takeMessage('payment', 'po-1', T0, 'instance-b')).toBeUndefined();
      expectMessage(await reopened.takeMessage('payment', 'po-1', T0, 'instance-a'), held);
      expectMessage(await reopened.takeMessage('payment', 'po-2', T0, 'instance-b'), free);
      expect(await reopened.putMessage(held)).toBe(false);
    });

    test('TH-MSG-13', async (repository) => {
      for (const bad of [
        message('nan', { publishedAt: Number.NaN }),
        message('infinite', { expiresAt: Number.POSITIVE_INFINITY }),
      ]) {
        expect(await rejectionOf(repository.putMessage(bad))).toBeInstanceOf(RangeError);
      }
      expect(await rejectionOf(repository.takeMessage('payment', 'po-1', Number.NaN, 'instance-a'))).toBeInstanceOf(
        RangeError,
      );
      expect(await rejectionOf(repository.expireMessages(Number.NEGATIVE_INFINITY))).toBeInstanceOf(RangeError);
      expect(await repository.putMessage(message('fine'))).toBe(true);
      expect(await repository.expireMessages(T0)).toBe(0);
    });

    test('TH-MSG-14', async (repository) => {
      await repository.put(
        checkpoint('order-1', 1, { meta: { subscriptions: [{ name: 'message:payment', key: 'po-1' }] } }),
      );
      await repository.putMessage(message('msg-1'));
      await repository.putMessage(message('msg-2', { publishedAt: T0 + 1 }));
      await repository.takeMessage('payment', 'po-1', T0, 'order-1');

      await repository.delete('order-1');

      expect((await repository.takeMessage('payment', 'po-1', T0, 'order-1'))?.id).toBe('msg-1');
      expect((await repository.takeMessage('payment', 'po-1', T0, 'order-2'))?.id).toBe('msg-2');
    });

    test('TH-MSG-15', async (repository) => {
      await repository.putMessage(message('refund-old', { name: 'refund', publishedAt: T0 }));
      await repository.putMessage(message('payment-mid', { publishedAt: T0 + 1 }));
      await repository.putMessage(message('other-name', { name: 'cancel', publishedAt: T0 - 1 }));
      await repository.putMessage(message('refund-new', { name: 'refund', publishedAt: T0 + 2 }));
      const names = ['payment', 'refund'];

      const first = await repository.takeMessage(names, 'po-1', T0, 'instance-a');
      const again = await repository.takeMessage(['payment', 'refund', 'payment'], 'po-1', T0, 'instance-a');
      await repository.deleteMessage(first!.id);

      expect(first?.id).toBe('refund-old');
      expect(again?.id).toBe('refund-old');
      expect(await drain(repository, 'payment', 'po-1', T0)).toEqual(['payment-mid']);
      expect((await repository.takeMessage(['refund', 'lone \ud800 surrogate'], 'po-1', T0, 'instance-a'))?.id).toBe(
        'refund-new',
      );
      expect(await repository.takeMessage([], 'po-1', T0, 'instance-b')).toBeUndefined();
      expect((await repository.takeMessage(['cancel'], 'po-1', T0, 'instance-b'))?.id).toBe('other-name');
      for (const bad of [[1], 7] as unknown as string[][]) {
        expect(await rejectionOf(repository.takeMessage(bad, 'po-1', T0, 'instance-c'))).toBeInstanceOf(RangeError);
      }
    });
  });
}
