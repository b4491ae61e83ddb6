import type { InstanceMeta, InstanceQuery, InstanceSummary, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, meta, putAll, putChain } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#instances` and `instanceIds`: discovery by what `put` indexed, ids ascending, keyset paging. */
export function describeInstances<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'instances.ts');
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
    test('TH-INSTANCES-01', async (repository) => {
      expect(await repository.instances()).toEqual([]);
      expect(await repository.instances({ roots: true, limit: 10 })).toEqual([]);
    });

    test('TH-INSTANCES-02', async (repository) => {
      await putFamily(repository);

      const summaries = await repository.instances();

      expect(ids(summaries)).toEqual(['child-a1', 'child-a2', 'child-b1', 'root-a', 'root-b']);
      expect(summaries[0]).toEqual({
        instanceId: 'child-a1',
        latestSeq: 1,
        definitionDigest: 'definition-digest-1',
        rootId: 'root-a',
        serial: expect.any(Number),
        ...meta({ definitionId: 'billing', parentId: 'root-a', callNodeId: 'bill' }),
      });
    });

    test('TH-INSTANCES-03', async (repository) => {
      await repository.put(checkpoint('order-1', 1, { meta: { businessKey: 'A-1' } }));
      const last = checkpoint('order-1', 2, {
        definitionDigest: 'definition-digest-2',
        meta: { status: 'completed', businessKey: 'A-1 (paid)', processId: 'order_process_v2' },
      });

      await repository.put(last);

      expect(await repository.instances()).toEqual([
        {
          ...last.meta,
          instanceId: 'order-1',
          latestSeq: 2,
          definitionDigest: 'definition-digest-2',
          rootId: 'order-1',
          serial: expect.any(Number),
        },
      ]);
      expect(ids(await repository.instances({ status: 'running' }))).toEqual([]);
      expect(ids(await repository.instances({ status: 'completed' }))).toEqual(['order-1']);
    });

    test('TH-INSTANCES-04', async (repository) => {
      await putChain(repository, 'order-1', 2, { meta: { businessKey: 'A-1' } });

      await repository.put(checkpoint('order-1', 3, { parentSeq: 1, meta: { status: 'terminated' } })).catch(() => {});

      expect(await repository.instances()).toEqual([
        {
          ...meta({ businessKey: 'A-1' }),
          instanceId: 'order-1',
          latestSeq: 2,
          definitionDigest: 'definition-digest-1',
          rootId: 'order-1',
          serial: expect.any(Number),
        },
      ]);
    });

    test('TH-INSTANCES-05', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ roots: true }))).toEqual(['root-a', 'root-b']);
    });

    test('TH-INSTANCES-06', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ children: true }))).toEqual(['child-a1', 'child-a2', 'child-b1']);
    });

    test('TH-INSTANCES-07', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ parentId: 'root-a' }))).toEqual(['child-a1', 'child-a2']);
      expect(ids(await repository.instances({ parentId: 'child-a1' }))).toEqual([]);
    });

    test('TH-INSTANCES-08', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ status: 'running' }))).toEqual(['child-a1', 'root-a']);
      expect(ids(await repository.instances({ status: 'completed' }))).toEqual(['child-a2', 'root-b']);
      expect(ids(await repository.instances({ status: 'terminated' }))).toEqual(['child-b1']);
    });

    test('TH-INSTANCES-09', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ definition: 'billing' }))).toEqual(['child-a1', 'child-b1', 'root-b']);
      expect(ids(await repository.instances({ definition: 'unknown' }))).toEqual([]);
    });

    test('TH-INSTANCES-10', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ definition: 'billing', children: true, status: 'running' }))).toEqual([
        'child-a1',
      ]);
      expect(ids(await repository.instances({ definition: 'billing', roots: true }))).toEqual(['root-b']);
      expect(ids(await repository.instances({ parentId: 'root-b', status: 'running' }))).toEqual([]);
    });

    test('TH-INSTANCES-11', async (repository) => {
      await putFamily(repository);

      expect(ids(await repository.instances({ limit: 2 }))).toEqual(['child-a1', 'child-a2']);
      expect(ids(await repository.instances({ roots: true, limit: 1 }))).toEqual(['root-a']);
      expect(await repository.instances({ limit: 0 })).toEqual([]);
    });

    test('TH-INSTANCES-12', async (repository) => {
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

    test('TH-INSTANCES-13', async (repository) => {
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

    test('TH-INSTANCES-14', async (repository) => {
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

    test('TH-INSTANCES-15', async (repository) => {
      // Code points B U+0042, a U+0061, é U+00E9, ！ U+FF01, ｚ U+FF5A, 😀 U+1F600. UTF-16 code units would put
      // 😀 (0xD83D 0xDE00) before ！, and a locale collation would put a before B: neither is this order.
      const expected = ['B', 'a', 'é', '！', 'ｚ', '😀'];
      for (const instanceId of ['😀', '！', 'a', 'ｚ', 'é', 'B']) await putChain(repository, instanceId, 1);

      expect(ids(await repository.instances())).toEqual(expected);
      expect(ids(await repository.instances({ after: 'ｚ' }))).toEqual(['😀']);
      expect(ids(await repository.instances({ after: '！' }))).toEqual(['ｚ', '😀']);
    });

    test('TH-INSTANCES-16', async (repository) => {
      const all = Array.from({ length: 10_000 }, (_, i) => `instance-${String(i).padStart(5, '0')}`);
      // Put in an order unrelated to the ids (7919 is prime to 10,000), so the store's ordering is what is tested.
      const order = Array.from({ length: all.length }, (_, i) => all[(i * 7919) % all.length]!);
      await putAll(
        repository,
        order.map((instanceId, i) => checkpoint(instanceId, 1, { meta: { status: i % 4 ? 'running' : 'completed' } })),
      );

      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = ids(await repository.instances(after === undefined ? { limit: 750 } : { limit: 750, after }));
        if (page.length === 0) break;
        pages.push(page);
        after = page[page.length - 1];
      }

      expect(pages.map((page) => page.length)).toEqual([...Array(13).fill(750), 250]);
      expect(pages.flat()).toEqual(all);
      const completed: string[] = [];
      after = undefined;
      for (;;) {
        const query = { status: 'completed', limit: 1_000 } as const;
        const page = ids(await repository.instances(after === undefined ? query : { ...query, after }));
        if (page.length === 0) break;
        completed.push(...page);
        after = page[page.length - 1];
      }
      expect(completed).toEqual(order.filter((_, i) => i % 4 === 0).sort());
    });

    test('TH-INSTANCES-17', async (repository) => {
      const subscriptions = [
        { name: 'payment', key: 'po-2' },
        { name: 'cancel', key: null },
        { name: 'payment', key: 'po-1' },
        { name: 'payment', key: 'po-2' },
      ];
      await repository.put(checkpoint('order-1', 1, { meta: { dueAt: 1_700_000_000_000, subscriptions } }));
      await repository.put(checkpoint('order-2', 1));
      await repository.put(checkpoint('order-1', 2, { meta: { dueAt: 1_700_000_000_500, subscriptions } }));

      const [first, second] = await repository.instances();

      expect(first).toMatchObject({ instanceId: 'order-1', dueAt: 1_700_000_000_500 });
      expect(first?.subscriptions).toEqual(subscriptions);
      expect(second).toMatchObject({ instanceId: 'order-2', dueAt: null, subscriptions: [] });
      expect((await repository.instances({ after: 'order-1' }))[0]?.subscriptions).toEqual([]);
      expect((await repository.instances({ limit: 1 }))[0]?.subscriptions).toEqual(subscriptions);
    });

    test('TH-INSTANCES-18', async (repository) => {
      await putFamily(repository);
      await putChain(repository, 'grandchild-a11', 1, { meta: { parentId: 'child-a1', callNodeId: 'pay' } });
      const queries: InstanceQuery[] = [
        {},
        { roots: true },
        { children: true },
        { parentId: 'root-a' },
        { rootId: 'root-a' },
        { status: 'running' },
        { status: 'completed' },
        { definition: 'billing' },
        { definition: 'billing', children: true, status: 'running' },
        { after: 'child-a2' },
        { before: 'root-a', order: 'desc' },
        { status: 'running', limit: 2 },
        { order: 'desc', limit: 3, after: 'child-a1' },
        { limit: 0 },
        { parentId: 'nobody' },
        { parentId: '\ud800' },
      ];
      for (const query of queries) {
        expect({ query, ids: await repository.instanceIds(query) }).toEqual({
          query,
          ids: ids(await repository.instances(query)),
        });
      }
      expect(await repository.instanceIds({ status: 'running' })).toEqual(['child-a1', 'grandchild-a11', 'root-a']);
    });

    test('TH-INSTANCES-19', async (repository) => {
      await expect(repository.instanceIds({ limit: -1 })).rejects.toThrow(RangeError);
      await expect(repository.instanceIds({ order: 'sideways' as 'asc' })).rejects.toThrow(RangeError);
    });

    test('TH-INSTANCES-20', async (repository) => {
      const keyed: [string, Partial<InstanceMeta>][] = [
        ['k-1', { businessKey: 'order-7' }],
        ['k-2', { businessKey: 'order-8', definitionId: 'billing' }],
        ['k-3', { businessKey: 'order-7', definitionId: 'billing', status: 'completed' }],
        ['k-4', { businessKey: null }],
      ];
      for (const [instanceId, overrides] of keyed) await putChain(repository, instanceId, 1, { meta: overrides });

      expect(ids(await repository.instances({ businessKey: 'order-7' }))).toEqual(['k-1', 'k-3']);
      expect(ids(await repository.instances({ businessKey: 'order-7', order: 'desc', limit: 1 }))).toEqual(['k-3']);
      expect(ids(await repository.instances({ businessKey: 'order-7', status: 'running' }))).toEqual(['k-1']);
      expect(ids(await repository.instances({ businessKey: 'order-8', definition: 'billing' }))).toEqual(['k-2']);
      expect(await repository.instanceIds({ businessKey: 'order-7', after: 'k-1' })).toEqual(['k-3']);
      expect(await repository.instances({ businessKey: '' })).toEqual([]);
      expect(await repository.instances({ businessKey: 'lone \ud800 surrogate' })).toEqual([]);
    });

    test('TH-INSTANCES-21', async (repository) => {
      const processes: [string, Partial<InstanceMeta>][] = [
        ['p-1', { definitionId: 'shop', processId: 'order' }],
        ['p-2', { definitionId: 'shop', processId: 'refund' }],
        ['p-3', { definitionId: 'legacy', processId: 'order', status: 'completed' }],
      ];
      for (const [instanceId, overrides] of processes) await putChain(repository, instanceId, 1, { meta: overrides });

      expect(ids(await repository.instances({ processId: 'order' }))).toEqual(['p-1', 'p-3']);
      expect(ids(await repository.instances({ processId: 'order', definition: 'shop' }))).toEqual(['p-1']);
      expect(ids(await repository.instances({ processId: 'order', status: 'completed' }))).toEqual(['p-3']);
      expect(await repository.instanceIds({ processId: 'refund' })).toEqual(['p-2']);
      expect(await repository.instances({ processId: 'missing' })).toEqual([]);
    });

    test('TH-INSTANCES-22', async (repository) => {
      await putChain(repository, 'b', 1);
      await putChain(repository, 'a', 2);
      await putChain(repository, 'c', 1, { meta: { parentId: 'a', callNodeId: 'call' } });
      const before = serials(await repository.instances());

      await repository.put(checkpoint('b', 2, { parentSeq: 1, meta: { status: 'completed' } }));

      expect(before.every((serial) => Number.isSafeInteger(serial) && serial > 0)).toBe(true);
      const [a, b, c] = before;
      expect(b! < a! && a! < c!).toBe(true);
      expect(serials(await repository.instances())).toEqual(before);
    });

    test('TH-INSTANCES-23', async (repository) => {
      await putChain(repository, 'a', 1);
      await putChain(repository, 'b', 1);
      const [a, b] = serials(await repository.instances());

      await repository.delete('b');
      await putChain(repository, 'b', 1);
      await repository.copy('a', 'a-copy');

      const [a2, copy, b2] = serials(await repository.instances());
      expect(a2).toBe(a);
      expect(b2).toBeGreaterThan(b!);
      expect(copy).toBeGreaterThan(b!);
      expect(new Set([a2, copy, b2]).size).toBe(3);
    });

    test('TH-INSTANCES-24', async (repository) => {
      await putFamily(repository);
      const all = await repository.instances();
      const child = all.find(({ instanceId }) => instanceId === 'child-a1')!;

      expect(await repository.instances({ serial: child.serial })).toEqual([child]);
      expect(await repository.instanceIds({ serial: child.serial })).toEqual(['child-a1']);
      expect(await repository.instances({ serial: child.serial, roots: true })).toEqual([]);
      expect(await repository.instances({ serial: Math.max(...serials(all)) + 1 })).toEqual([]);
      expect(await repository.instances({ serial: 0 })).toEqual([]);
      for (const serial of [1.5, Number.NaN, 2 ** 53, '1' as unknown as number]) {
        await expect(repository.instances({ serial })).rejects.toThrow(RangeError);
      }
    });

    test('TH-INSTANCES-25', async (repository, store) => {
      await putChain(repository, 'a', 1);
      await putChain(repository, 'b', 1);
      await repository.delete('b');
      const [a] = serials(await repository.instances());
      await repository.close();

      const reopened = await store.reopen();
      await putChain(reopened, 'c', 1);

      const [a2, c] = serials(await reopened.instances());
      expect(a2).toBe(a);
      expect(c).toBeGreaterThan(a! + 1);
    });

    test('TH-INSTANCES-26', async (repository) => {
      await putFamily(repository);
      const all = await repository.instances();

      expect(ids(await repository.instances({ ids: ['child-a1', 'root-b', 'root-a'] }))).toEqual([
        'child-a1',
        'root-a',
        'root-b',
      ]);
      expect(await repository.instanceIds({ ids: ['root-b', 'gone', 'lone \ud800 surrogate'] })).toEqual(['root-b']);
      expect(ids(await repository.instances({ ids: ['child-a1', 'root-a'], roots: true }))).toEqual(['root-a']);
      expect(ids(await repository.instances({ ids: ['child-a1', 'root-a'], order: 'desc', limit: 1 }))).toEqual([
        'root-a',
      ]);
      expect(await repository.instances({ ids: [] })).toEqual([]);
      expect(await repository.instances({ ids: all.map(({ instanceId }) => instanceId) })).toEqual(all);
      await expect(repository.instances({ ids: 'root-a' as unknown as string[] })).rejects.toThrow(RangeError);
      await expect(repository.instances({ ids: [1 as unknown as string] })).rejects.toThrow(RangeError);
      await expect(repository.instances({ ids: Array.from({ length: 1001 }, (_, i) => `i-${i}`) })).rejects.toThrow(
        RangeError,
      );
    });
  });
}

function serials(summaries: InstanceSummary[]): number[] {
  return summaries.map(({ serial }) => serial);
}
