import { ConflictError, LeaseLostError, NotFoundError, type Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectStored, putChain, rejectionOf, utf8, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';
import { expectUnencodable, fullChild, PUT_TEXT_FIELDS, textOfBytes, visibleState } from './write-rule-fixtures.js';

/** Text no store can hold: U+0000, a lone high and a lone low surrogate, each amid ordinary text. */
const UNSTORABLE = ['order\u0000-1', 'order-\uD800', 'order-\uDC00-1', '\uDBFF'];

const message = (overrides: Record<string, unknown> = {}) => ({
  id: 'm-1',
  name: 'paid',
  correlationKey: 'A-1001',
  variables: utf8('{}'),
  publishedAt: 1_000,
  expiresAt: 10_000,
  ...overrides,
});

const deployment = (overrides: Record<string, unknown> = {}) => ({
  definitionId: 'order',
  digest: 'd-1',
  xml: '<definitions/>',
  deployedAt: 1,
  ...overrides,
});

/**
 * The contract's text rule, the same on every backend: U+0000 and lone UTF-16 surrogates are refused in
 * every text field a store keeps (no backend keeps both alike), and a lookup by such text finds nothing.
 */
export function describeTextRules<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'text-rules.ts');

  /** Put each field of a full child holding each text of `texts`: every put refused, naming the field. */
  async function expectPutFieldsRefused(repository: Repository, texts: string[]): Promise<void> {
    await putChain(repository, 'root', 1);
    const before = await visibleState(repository, ['paid']);
    for (const [path, set] of PUT_TEXT_FIELDS) {
      for (const text of texts) await expectUnencodable(repository.put(set(fullChild('child', 'root'), text)), path);
    }
    expect(await visibleState(repository, ['paid'])).toEqual(before);
    expect(await repository.get('child')).toBeUndefined();
  }

  describe('text rules', () => {
    test('TH-TEXT-01', async (repository) => {
      await expectPutFieldsRefused(repository, ['\u0000', 'a\u0000b', 'child\u0000']);
    });

    test('TH-TEXT-02', async (repository) => {
      await expectPutFieldsRefused(repository, ['\uD800', '\uDFFF', 'a\uDBFFb', 'x\uDC00\uD800']);
    });

    test('TH-TEXT-03', async (repository) => {
      await putChain(repository, 'order-1', 1);

      for (const text of UNSTORABLE) {
        await expectUnencodable(
          repository.putWrites('order-1', 1, [write('charge', 0, 'paid'), write(text, 0, 'x')]),
          'writes[1].taskId',
        );
      }

      expect((await repository.get('order-1'))?.writes).toEqual([]);
    });

    test('TH-TEXT-04', async (repository) => {
      for (const text of UNSTORABLE) {
        await expectUnencodable(repository.putMessage(message({ id: text })), 'message.id');
        await expectUnencodable(repository.putMessage(message({ name: text })), 'message.name');
        await expectUnencodable(repository.putMessage(message({ correlationKey: text })), 'message.correlationKey');
      }
      await repository.putMessage(message());
      for (const text of UNSTORABLE) {
        await expectUnencodable(repository.takeMessage('paid', 'A-1001', 2_000, text), 'taker');
      }

      const taken = await repository.takeMessage('paid', 'A-1001', 2_000, 'order-1');
      expect(taken?.id).toBe('m-1');
    });

    test('TH-TEXT-05', async (repository) => {
      for (const text of UNSTORABLE) {
        await expectUnencodable(repository.putDeployment(deployment({ definitionId: text })), 'definitionId');
        await expectUnencodable(repository.putDeployment(deployment({ digest: text })), 'digest');
        await expectUnencodable(repository.putDeployment(deployment({ xml: `<definitions id="${text}"/>` })), 'xml');
      }

      expect(await repository.deployments()).toEqual([]);
    });

    test('TH-TEXT-06', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const rewrite = { instanceId: 'order-1', seq: 1, expectedDigest: first!.digest, schema: 2, bytes: utf8('{}') };

      for (const text of UNSTORABLE) {
        await expectUnencodable(repository.claim({ owner: text, ttlMs: 1_000, now: 0, limit: 1 }), 'owner');
        await expectUnencodable(repository.copy('order-1', text), 'targetId');
        await expectUnencodable(repository.rewrite({ ...rewrite, digest: text }), 'digest');
      }

      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['order-1']);
      expectStored(await repository.get('order-1'), first!);
      expect(await repository.claim({ owner: 'node-1', ttlMs: 1_000, now: 0, limit: 1 })).toHaveLength(1);
    });

    test('TH-TEXT-07', async (repository) => {
      await putChain(repository, 'order-1', 1);
      await repository.putMessage(message());
      await repository.putDeployment(deployment());
      const before = await visibleState(repository, ['paid']);
      const lease = { instanceId: 'order-1', owner: 'node-1', token: 1, expiresAt: 1_000 };
      // Text no store can hold, and text past the length limit: nothing stored can equal either.
      for (const text of [...UNSTORABLE, textOfBytes(600, 'order-1')]) {
        expect(await repository.get(text)).toBeUndefined();
        expect(await repository.get(text, 1)).toBeUndefined();
        expect(await repository.list(text)).toEqual([]);
        await repository.delete(text);
        await repository.prune(text, { keepLast: 1 });
        expect(await repository.subscriptions(text, null)).toEqual([]);
        expect(await repository.subscriptions('paid', text)).toEqual([]);
        expect(await repository.takeMessage(text, 'A-1001', 2_000, 'order-1')).toBeUndefined();
        expect(await repository.takeMessage('paid', text, 2_000, 'order-1')).toBeUndefined();
        expect(await repository.deleteMessage(text)).toBe(false);
        expect(await repository.getDeployment(text)).toBeUndefined();
        expect(await repository.deployments(text)).toEqual([]);
        expect(await repository.claim({ owner: 'node-1', ttlMs: 1, now: 0, limit: 1, instanceIds: [text] })).toEqual(
          [],
        );
        expect(await rejectionOf(repository.renew({ ...lease, instanceId: text }, 1_000, 0))).toBeInstanceOf(
          LeaseLostError,
        );
        expect(await rejectionOf(repository.renew({ ...lease, owner: text }, 1_000, 0))).toBeInstanceOf(LeaseLostError);
        await repository.release({ ...lease, instanceId: text });
        expect(await rejectionOf(repository.copy(text, 'copy'))).toBeInstanceOf(NotFoundError);
        const rewrite = { instanceId: text, seq: 1, expectedDigest: 'd', schema: 1, digest: 'e', bytes: utf8('{}') };
        expect(await rejectionOf(repository.rewrite(rewrite))).toBeInstanceOf(ConflictError);
      }

      expect(await visibleState(repository, ['paid'])).toEqual(before);
      expect((await repository.takeMessage('paid', 'A-1001', 2_000, 'order-1'))?.id).toBe('m-1');
    });

    test('TH-TEXT-08', async (repository) => {
      const kept = ['\u0001\u001F\u007F', '\uFFFE\uFFFF\uFDD0', '\u{10FFFF}\u{1F69A}\uD83D\uDE00', '\u200B\uFEFF'];
      await putChain(repository, 'root', 1);

      for (const [i, text] of kept.entries()) {
        const child = fullChild(`child-${text}`, 'root');
        const keyed = {
          ...child,
          meta: { ...child.meta, businessKey: text, callNodeId: text, subscriptions: [{ name: text, key: text }] },
        };
        await repository.put(keyed);
        await repository.putWrites(keyed.instanceId, 1, [write(text, i, text)]);
        expectStored(await repository.get(keyed.instanceId), keyed, [write(text, i, text)]);
        expect(await repository.subscriptions(text, text)).toEqual([keyed.instanceId]);
      }
      const summaries = await repository.instances({ parentId: 'root' });
      expect(summaries.map(({ businessKey }) => businessKey).sort()).toEqual([...kept].sort());
      await repository.put(checkpoint('root', 2, { meta: { businessKey: kept[2]! } }));
      expect((await repository.get('root'))?.seq).toBe(2);
    });
  });
}
