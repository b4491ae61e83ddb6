import type { InstanceMeta, InstanceQuery, InstanceSummary, ListOptions, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectStored, putChain, rejectionOf, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const MAX = Number.MAX_SAFE_INTEGER;

/** `list` and `instances` in either order: the same bounds on every backend, and keyset paging both ways. */
export function describeReadOrder<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'read-order.ts');
  const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);
  const ids = (summaries: InstanceSummary[]) => summaries.map(({ instanceId }) => instanceId);
  /** 1..count, ascending. */
  const range = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

  /** Seqs 1, 2^53-2 and 2^53-1 of one instance: the top of the range a JavaScript seq can name exactly. */
  async function putTopOfRange(repository: Repository): Promise<void> {
    await repository.put(checkpoint('order-1', 1));
    await repository.put(checkpoint('order-1', MAX - 1, { parentSeq: 1 }));
    await repository.put(checkpoint('order-1', MAX, { parentSeq: MAX - 1 }));
  }

  /**
   * Every page of `list`, each read with the cursor `next` makes of the page before; at most `most` pages, so
   * a store that ignores the cursor fails the test instead of paging forever.
   */
  async function listPages(
    repository: Repository,
    first: ListOptions,
    next: (last: number) => ListOptions,
    most: number,
  ): Promise<number[][]> {
    const pages: number[][] = [];
    let options = first;
    while (pages.length <= most) {
      const page = seqs(await repository.list('order-1', options));
      if (page.length === 0) break;
      pages.push(page);
      options = { ...first, ...next(page[page.length - 1]!) };
    }
    return pages;
  }

  /** Every page of `instances`, each read with the cursor `next` makes of the page before; at most `most`. */
  async function instancePages(
    repository: Repository,
    first: InstanceQuery,
    next: (last: string) => InstanceQuery,
    most: number,
  ): Promise<string[][]> {
    const pages: string[][] = [];
    let query = first;
    while (pages.length <= most) {
      const page = ids(await repository.instances(query));
      if (page.length === 0) break;
      pages.push(page);
      query = { ...first, ...next(page[page.length - 1]!) };
    }
    return pages;
  }

  describe('Repository#list and #instances in either order', () => {
    test('TH-ORDER-01', async (repository) => {
      await putTopOfRange(repository);

      expect(seqs(await repository.list('order-1'))).toEqual([1, MAX - 1, MAX]);
      expect(seqs(await repository.list('order-1', { order: 'asc' }))).toEqual([1, MAX - 1, MAX]);
      expect(seqs(await repository.list('order-1', { order: 'desc' }))).toEqual([MAX, MAX - 1, 1]);
      expect(seqs(await repository.list('order-1', { order: 'desc', limit: 1 }))).toEqual([MAX]);
      expect((await repository.get('order-1'))?.seq).toBe(MAX);
      expect((await repository.instances())[0]?.latestSeq).toBe(MAX);
    });

    test('TH-ORDER-02', async (repository) => {
      await putTopOfRange(repository);

      expect(seqs(await repository.list('order-1', { before: MAX }))).toEqual([1, MAX - 1]);
      expect(seqs(await repository.list('order-1', { before: MAX, order: 'desc' }))).toEqual([MAX - 1, 1]);
      expect(seqs(await repository.list('order-1', { after: MAX - 1 }))).toEqual([MAX]);
      expect(seqs(await repository.list('order-1', { after: MAX - 1, order: 'desc' }))).toEqual([MAX]);
      expect(seqs(await repository.list('order-1', { after: 1, before: MAX }))).toEqual([MAX - 1]);
      expect(await repository.list('order-1', { after: MAX })).toEqual([]);
      expect(await repository.list('order-1', { after: MAX - 1, before: MAX })).toEqual([]);
    });

    test('TH-ORDER-03', async (repository) => {
      const chain = await putChain(repository, 'order-1', 1_000);

      const newest = await repository.list('order-1', { order: 'desc', limit: 100 });

      expect(seqs(newest)).toEqual(range(1_000).reverse().slice(0, 100));
      expectStored(newest[0], chain[999]!);
      expectStored(newest[99], chain[900]!);
    });

    test('TH-ORDER-04', async (repository) => {
      await putChain(repository, 'order-1', 1_000);

      const newestFirst = await listPages(repository, { order: 'desc', limit: 100 }, (last) => ({ before: last }), 10);
      const oldestFirst = await listPages(repository, { limit: 300 }, (last) => ({ after: last }), 4);

      expect(newestFirst.map((page) => page.length)).toEqual(Array(10).fill(100));
      expect(newestFirst.flat()).toEqual(range(1_000).reverse());
      expect(oldestFirst.map((page) => page.length)).toEqual([300, 300, 300, 100]);
      expect(oldestFirst.flat()).toEqual(range(1_000));
    });

    test('TH-ORDER-05', async (repository) => {
      await putChain(repository, 'order-1', 10);

      expect(seqs(await repository.list('order-1', { after: 3, before: 8 }))).toEqual([4, 5, 6, 7]);
      expect(seqs(await repository.list('order-1', { after: 3, before: 8, order: 'desc' }))).toEqual([7, 6, 5, 4]);
      expect(seqs(await repository.list('order-1', { after: 3, before: 8, limit: 2 }))).toEqual([4, 5]);
      expect(seqs(await repository.list('order-1', { after: 3, before: 8, limit: 2, order: 'desc' }))).toEqual([7, 6]);
      expect(seqs(await repository.list('order-1', { before: 4, order: 'desc' }))).toEqual([3, 2, 1]);
      expect(seqs(await repository.list('order-1', { after: 7 }))).toEqual([8, 9, 10]);
      expect(seqs(await repository.list('order-1', { after: -5, before: 11 }))).toEqual(range(10));
      expect(await repository.list('order-1', { after: 8, before: 3 })).toEqual([]);
      expect(await repository.list('order-1', { before: 1, order: 'desc' })).toEqual([]);
      expect(await repository.list('order-1', { after: 10, order: 'desc' })).toEqual([]);
      expect(await repository.list('order-1', { order: 'desc', limit: 0 })).toEqual([]);
    });

    test('TH-ORDER-06', async (repository) => {
      // Entries are filed against the latest checkpoint, so each is filed before the next put.
      const chain = [checkpoint('order-1', 1), checkpoint('order-1', 2), checkpoint('order-1', 3)];
      await repository.put(chain[0]!);
      await repository.putWrites('order-1', 1, [write('charge', 0, 'one')]);
      await repository.put(chain[1]!);
      await repository.put(chain[2]!);
      await repository.putWrites('order-1', 3, [write('ship', 0, 'three'), write('ship', 1, 'three again')]);

      const listed = await repository.list('order-1', { order: 'desc' });
      const page = await repository.list('order-1', { order: 'desc', before: 3, limit: 1 });

      expect(seqs(listed)).toEqual([3, 2, 1]);
      expectStored(listed[0], chain[2]!, [write('ship', 0, 'three'), write('ship', 1, 'three again')]);
      expectStored(listed[1], chain[1]!, []);
      expectStored(listed[2], chain[0]!, [write('charge', 0, 'one')]);
      expect(seqs(page)).toEqual([2]);
      expectStored(page[0], chain[1]!, []);
    });

    test('TH-ORDER-07', async (repository) => {
      await putChain(repository, 'order-1', 2);
      const refused: unknown[] = [
        { order: 'newest' },
        { before: 1.5 },
        { after: Number.NaN },
        { before: Number.POSITIVE_INFINITY },
        { after: MAX + 1 },
        { before: '2' },
        { limit: -1 },
        { limit: 2.5 },
        { limit: Number.POSITIVE_INFINITY },
      ];

      for (const options of refused) {
        for (const instanceId of ['order-1', 'missing']) {
          const error = await rejectionOf(repository.list(instanceId, options as ListOptions));
          expect(error, JSON.stringify(options)).toBeInstanceOf(RangeError);
        }
      }
      expect(seqs(await repository.list('order-1'))).toEqual([1, 2]);
    });

    test('TH-ORDER-08', async (repository) => {
      // Code points B U+0042, a U+0061, é U+00E9, ！ U+FF01, ｚ U+FF5A, 😀 U+1F600: neither UTF-16 code unit
      // order nor a locale collation gives this order.
      const ascending = ['B', 'a', 'é', '！', 'ｚ', '😀'];
      for (const instanceId of ['😀', '！', 'a', 'ｚ', 'é', 'B']) await putChain(repository, instanceId, 1);

      expect(ids(await repository.instances({ order: 'desc' }))).toEqual([...ascending].reverse());
      expect(ids(await repository.instances({ order: 'asc' }))).toEqual(ascending);
      expect(ids(await repository.instances({ order: 'desc', limit: 2 }))).toEqual(['😀', 'ｚ']);
      expect(ids(await repository.instances({ order: 'desc', before: '！' }))).toEqual(['é', 'a', 'B']);
    });

    test('TH-ORDER-09', async (repository) => {
      const all = Array.from({ length: 250 }, (_, i) => `instance-${String(i).padStart(3, '0')}`);
      // Put in an order unrelated to the ids, so the store's ordering is what is tested.
      for (let i = 0; i < all.length; i++) await putChain(repository, all[(i * 97) % all.length]!, 1);

      const descending = await instancePages(
        repository,
        { order: 'desc', limit: 100 },
        (last) => ({ before: last }),
        3,
      );
      const ascending = await instancePages(repository, { order: 'asc', limit: 100 }, (last) => ({ after: last }), 3);

      expect(descending.map((page) => page.length)).toEqual([100, 100, 50]);
      expect(descending.flat()).toEqual([...all].reverse());
      expect(ascending.flat()).toEqual(all);
    });

    test('TH-ORDER-10', async (repository) => {
      const family: [string, Partial<InstanceMeta>][] = [
        ['p-1', {}],
        ['p-2', { definitionId: 'billing' }],
      ];
      for (let i = 1; i <= 6; i++) {
        const status = i % 2 === 0 ? 'completed' : 'running';
        family.push([`p-1/c-0${i}`, { parentId: 'p-1', callNodeId: 'call', status }]);
        if (i <= 3) family.push([`p-2/c-0${i}`, { parentId: 'p-2', callNodeId: 'call', definitionId: 'billing' }]);
      }
      for (const [instanceId, overrides] of family) await putChain(repository, instanceId, 1, { meta: overrides });
      const expected = (keep: (overrides: Partial<InstanceMeta>) => boolean) =>
        family
          .filter(([, overrides]) => keep(overrides))
          .map(([instanceId]) => instanceId)
          .sort()
          .reverse();

      expect(ids(await repository.instances({ roots: true, order: 'desc' }))).toEqual(['p-2', 'p-1']);
      expect(ids(await repository.instances({ children: true, order: 'desc' }))).toEqual(
        expected((overrides) => overrides.parentId !== undefined),
      );
      expect(ids(await repository.instances({ status: 'completed', order: 'desc' }))).toEqual(
        expected((overrides) => overrides.status === 'completed'),
      );
      expect(ids(await repository.instances({ definition: 'billing', order: 'desc' }))).toEqual(
        expected((overrides) => overrides.definitionId === 'billing'),
      );
      const first = { parentId: 'p-1', order: 'desc', limit: 2 } as const;
      expect(ids(await repository.instances(first))).toEqual(['p-1/c-06', 'p-1/c-05']);
      expect(ids(await repository.instances({ ...first, limit: 10, before: 'p-1/c-05' }))).toEqual([
        'p-1/c-04',
        'p-1/c-03',
        'p-1/c-02',
        'p-1/c-01',
      ]);
      expect(ids(await repository.instances({ parentId: 'p-1', status: 'running', order: 'desc', limit: 2 }))).toEqual([
        'p-1/c-05',
        'p-1/c-03',
      ]);
    });

    test('TH-ORDER-11', async (repository) => {
      for (const instanceId of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) await putChain(repository, instanceId, 1);

      expect(ids(await repository.instances({ after: 'b', before: 'g' }))).toEqual(['c', 'd', 'e', 'f']);
      expect(ids(await repository.instances({ after: 'b', before: 'g', order: 'desc' }))).toEqual(['f', 'e', 'd', 'c']);
      expect(ids(await repository.instances({ after: 'b', before: 'g', limit: 2 }))).toEqual(['c', 'd']);
      expect(ids(await repository.instances({ after: 'b', before: 'g', limit: 2, order: 'desc' }))).toEqual(['f', 'e']);
      // Bounds need not be stored ids.
      expect(ids(await repository.instances({ after: 'b0', before: 'f0', order: 'desc' }))).toEqual([
        'f',
        'e',
        'd',
        'c',
      ]);
      expect(await repository.instances({ after: 'g', before: 'b' })).toEqual([]);
      expect(await repository.instances({ after: 'c', before: 'd' })).toEqual([]);
    });

    test('TH-ORDER-12', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const refused: unknown[] = [
        { order: 'newest' },
        { order: 'DESC' },
        { limit: -1 },
        { limit: 1.5 },
        { limit: Number.NaN },
        { limit: Number.POSITIVE_INFINITY },
      ];

      for (const query of refused) {
        const error = await rejectionOf(repository.instances(query as InstanceQuery));
        expect(error, JSON.stringify(query)).toBeInstanceOf(RangeError);
      }
      expect(ids(await repository.instances())).toEqual(['order-1']);
    });
  });
}
