import { describe, expect } from 'vitest';
import type { InstanceMeta, InstanceSummary, Repository } from '../repository.js';
import { checkpoint, contractTest, meta, putChain } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#instances`: discovery by what `put` indexed, ids ascending, keyset paging. */
export function describeInstances<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer);
  const ids = (summaries: InstanceSummary[]) => summaries.map(({ instanceId }) => instanceId);

  /** A small family: two roots of different definitions, three children, mixed statuses. */
  async function putFamily(repository: Repository): Promise<void> {
    const family: [string, Partial<InstanceMeta>][] = [
      ['root-b', { definitionId: 'billing', status: 'completed' }],
      ['root-a', { definitionId: 'order-fulfilment' }],
      ['child-a2', { definitionId: 'shipping', parentId: 'root-a', callNodeId: 'ship', status: 'completed' }],
      ['child-a1', { definitionId: 'billing', parentId: 'root-a', callNodeId: 'bill' }],
      ['child-b1', { definitionId: 'billing', parentId: 'root-b', callNodeId: 'refund', status: 'terminated' }],
    ];
    for (const [instanceId, overrides] of family) await putChain(repository, instanceId, 1, { meta: overrides });
  }

  describe('Repository#instances', () => {
    test('should return no instances from an empty repository', async (repository) => {
      expect(await repository.instances()).toEqual([]);
      expect(await repository.instances({ roots: true, limit: 10 })).toEqual([]);
    });

    test('should return every instance with its indexed meta, ids ascending, when no query is given', async (repository) => {
      await putFamily(repository);

      const summaries = await repository.instances();

      expect(ids(summaries)).toEqual(['child-a1', 'child-a2', 'child-b1', 'root-a', 'root-b']);
      expect(summaries[0]).toEqual({
        instanceId: 'child-a1',
        latestSeq: 1,
        definitionDigest: 'definition-digest-1',
        ...meta({ definitionId: 'billing', parentId: 'root-a', callNodeId: 'bill' }),
      });
    });

    test('should reflect the latest put in latestSeq, definitionDigest and meta', async (repository) => {
      await repository.put(checkpoint('order-1', 1, { meta: { businessKey: 'A-1' } }));
      const last = checkpoint('order-1', 2, {
        definitionDigest: 'definition-digest-2',
        meta: { status: 'completed', businessKey: 'A-1 (paid)', processId: 'order_process_v2' },
      });

      await repository.put(last);

      expect(await repository.instances()).toEqual([
        { ...last.meta, instanceId: 'order-1', latestSeq: 2, definitionDigest: 'definition-digest-2' },
      ]);
      expect(ids(await repository.instances({ status: 'running' }))).toEqual([]);
      expect(ids(await repository.instances({ status: 'completed' }))).toEqual(['order-1']);
    });

    test('should not change the summary when a put is refused', async (repository) => {
      await putChain(repository, 'order-1', 2, { meta: { businessKey: 'A-1' } });

      await repository.put(checkpoint('order-1', 3, { parentSeq: 1, meta: { status: 'terminated' } })).catch(() => {});

      expect(await repository.instances()).toEqual([
        {
          ...meta({ businessKey: 'A-1' }),
          instanceId: 'order-1',
          latestSeq: 2,
          definitionDigest: 'definition-digest-1',
        },
      ]);
    });

    test('should return only root instances when roots is set', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ roots: true }))).toEqual(['root-a', 'root-b']);
    });

    test('should return only called children when children is set', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ children: true }))).toEqual(['child-a1', 'child-a2', 'child-b1']);
    });

    test('should return the children of one parent when parentId is set', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ parentId: 'root-a' }))).toEqual(['child-a1', 'child-a2']);
      expect(ids(await repository.instances({ parentId: 'child-a1' }))).toEqual([]);
    });

    test('should filter by status', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ status: 'running' }))).toEqual(['child-a1', 'root-a']);
      expect(ids(await repository.instances({ status: 'completed' }))).toEqual(['child-a2', 'root-b']);
      expect(ids(await repository.instances({ status: 'terminated' }))).toEqual(['child-b1']);
    });

    test('should filter by definition id', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ definition: 'billing' }))).toEqual(['child-a1', 'child-b1', 'root-b']);
      expect(ids(await repository.instances({ definition: 'unknown' }))).toEqual([]);
    });

    test('should combine filters', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ definition: 'billing', children: true, status: 'running' }))).toEqual([
        'child-a1',
      ]);
      expect(ids(await repository.instances({ definition: 'billing', roots: true }))).toEqual(['root-b']);
      expect(ids(await repository.instances({ parentId: 'root-b', status: 'running' }))).toEqual([]);
    });

    test('should return at most limit instances', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ limit: 2 }))).toEqual(['child-a1', 'child-a2']);
      expect(ids(await repository.instances({ roots: true, limit: 1 }))).toEqual(['root-a']);
      expect(await repository.instances({ limit: 0 })).toEqual([]);
    });

    test('should return only instances whose id sorts after after', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ after: 'child-b1' }))).toEqual(['root-a', 'root-b']);
      expect(ids(await repository.instances({ after: 'child' }))).toEqual([
        'child-a1',
        'child-a2',
        'child-b1',
        'root-a',
        'root-b',
      ]);
      expect(ids(await repository.instances({ after: 'root-b' }))).toEqual([]);
    });

    test('should page through 250 instances with after and limit, without gaps or repeats', async (repository) => {
      const all = Array.from({ length: 250 }, (_, i) => `instance-${String(i).padStart(3, '0')}`);
      // Put in an order unrelated to the ids, so the store's ordering is what is tested.
      for (let i = 0; i < all.length; i++) {
        await putChain(repository, all[(i * 97) % all.length]!, 1, {
          meta: { status: i % 3 ? 'running' : 'completed' },
        });
      }

      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = ids(await repository.instances(after === undefined ? { limit: 100 } : { limit: 100, after }));
        if (page.length === 0) break;
        pages.push(page);
        after = page[page.length - 1];
      }

      expect(pages.map((page) => page.length)).toEqual([100, 100, 50]);
      expect(pages.flat()).toEqual(all);
    });

    test('should page with after within a filter', async (repository) => {
      for (let i = 0; i < 30; i++) {
        await putChain(repository, `i-${String(i).padStart(2, '0')}`, 1, {
          meta: { status: i % 2 === 0 ? 'running' : 'completed' },
        });
      }

      const first = ids(await repository.instances({ status: 'completed', limit: 10 }));
      const rest = ids(await repository.instances({ status: 'completed', after: first[first.length - 1]! }));

      expect([...first, ...rest]).toEqual(
        Array.from({ length: 15 }, (_, i) => `i-${String(2 * i + 1).padStart(2, '0')}`),
      );
    });

    test('should order ids by Unicode code point, as UTF-8 bytes compare', async (repository) => {
      // Code points B U+0042, a U+0061, é U+00E9, ！ U+FF01, ｚ U+FF5A, 😀 U+1F600. UTF-16 code units would put
      // 😀 (0xD83D 0xDE00) before ！, and a locale collation would put a before B: neither is this order.
      const expected = ['B', 'a', 'é', '！', 'ｚ', '😀'];
      for (const instanceId of ['😀', '！', 'a', 'ｚ', 'é', 'B']) await putChain(repository, instanceId, 1);

      expect(ids(await repository.instances())).toEqual(expected);
      expect(ids(await repository.instances({ after: 'ｚ' }))).toEqual(['😀']);
      expect(ids(await repository.instances({ after: '！' }))).toEqual(['ｚ', '😀']);
    });
  });
}
