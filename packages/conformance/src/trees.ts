import type { InstanceMeta, InstanceSummary, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, meta, putChain, utf8 } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/**
 * A three-level call tree under `m-root` and an unrelated root with a child, listed parents first (a child's
 * parent must exist when it is put). Ids sort unrelated to depth, so the tree query is what finds them.
 */
const TREE: [string, Partial<InstanceMeta>][] = [
  ['m-root', {}],
  ['b-child', { parentId: 'm-root', callNodeId: 'bill', status: 'completed' }],
  ['k-child', { parentId: 'm-root', callNodeId: 'ship' }],
  ['z-grandchild', { parentId: 'b-child', callNodeId: 'charge', status: 'completed' }],
  ['a-grandchild', { parentId: 'k-child', callNodeId: 'pack' }],
  ['q-grandchild', { parentId: 'k-child', callNodeId: 'label', status: 'terminated' }],
  ['other-root', { definitionId: 'billing' }],
  ['c-other-child', { parentId: 'other-root', callNodeId: 'refund', definitionId: 'billing' }],
];

/** The ids of the `m-root` tree, ascending. */
const M_TREE = ['a-grandchild', 'b-child', 'k-child', 'm-root', 'q-grandchild', 'z-grandchild'];

/** `InstanceSummary#rootId` and `instances({ rootId })`: call trees, derived by the store, found in one query. */
export function describeTrees<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'trees.ts');
  const ids = (summaries: InstanceSummary[]) => summaries.map(({ instanceId }) => instanceId);
  const roots = (summaries: InstanceSummary[]) =>
    Object.fromEntries(summaries.map(({ instanceId, rootId }) => [instanceId, rootId]));

  async function putTree(repository: Repository): Promise<void> {
    for (const [instanceId, overrides] of TREE) await putChain(repository, instanceId, 1, { meta: overrides });
  }

  describe('call trees (InstanceSummary#rootId, instances({ rootId }))', () => {
    test('TH-TREE-01', async (repository) => {
      await putTree(repository);

      const summaries = await repository.instances();

      expect(roots(summaries)).toEqual({
        'a-grandchild': 'm-root',
        'b-child': 'm-root',
        'c-other-child': 'other-root',
        'k-child': 'm-root',
        'm-root': 'm-root',
        'other-root': 'other-root',
        'q-grandchild': 'm-root',
        'z-grandchild': 'm-root',
      });
      expect(summaries.find(({ instanceId }) => instanceId === 'z-grandchild')).toEqual({
        ...meta({ parentId: 'b-child', callNodeId: 'charge', status: 'completed' }),
        instanceId: 'z-grandchild',
        latestSeq: 1,
        definitionDigest: 'definition-digest-1',
        rootId: 'm-root',
        serial: expect.any(Number),
      });
    });

    test('TH-TREE-02', async (repository) => {
      await putTree(repository);

      const tree = await repository.instances({ rootId: 'm-root' });

      expect(ids(tree)).toEqual(M_TREE);
      expect(tree.every(({ rootId }) => rootId === 'm-root')).toBe(true);
      expect(ids(await repository.instances({ rootId: 'other-root' }))).toEqual(['c-other-child', 'other-root']);
    });

    test('TH-TREE-03', async (repository) => {
      await putTree(repository);

      expect(ids(await repository.instances({ rootId: 'm-root', status: 'running' }))).toEqual([
        'a-grandchild',
        'k-child',
        'm-root',
      ]);
      expect(ids(await repository.instances({ rootId: 'm-root', children: true, order: 'desc' }))).toEqual(
        M_TREE.filter((id) => id !== 'm-root').reverse(),
      );
      expect(ids(await repository.instances({ rootId: 'm-root', parentId: 'k-child' }))).toEqual([
        'a-grandchild',
        'q-grandchild',
      ]);
      expect(ids(await repository.instances({ rootId: 'm-root', definition: 'billing' }))).toEqual([]);
      const descending = { rootId: 'm-root', order: 'desc', limit: 4 } as const;
      const first = ids(await repository.instances(descending));
      const rest = ids(await repository.instances({ ...descending, before: first[first.length - 1]! }));
      expect([...first, ...rest]).toEqual([...M_TREE].reverse());
      const page = ids(await repository.instances({ rootId: 'm-root', limit: 4 }));
      const next = ids(await repository.instances({ rootId: 'm-root', after: page[page.length - 1]! }));
      expect([...page, ...next]).toEqual(M_TREE);
    });

    test('TH-TREE-04', async (repository) => {
      await putTree(repository);

      expect(await repository.instances({ rootId: 'k-child' })).toEqual([]);
      expect(await repository.instances({ rootId: 'z-grandchild' })).toEqual([]);
      expect(await repository.instances({ rootId: 'missing' })).toEqual([]);
    });

    test('TH-TREE-05', async (repository) => {
      await putTree(repository);

      await repository.delete('k-child');

      const tree = await repository.instances({ rootId: 'm-root' });
      expect(ids(tree)).toEqual(M_TREE.filter((id) => id !== 'k-child'));
      expect(
        tree.filter(({ parentId }) => parentId === 'k-child').map(({ instanceId, rootId }) => [instanceId, rootId]),
      ).toEqual([
        ['a-grandchild', 'm-root'],
        ['q-grandchild', 'm-root'],
      ]);
    });

    test('TH-TREE-06', async (repository) => {
      await putTree(repository);

      await repository.delete('m-root');

      expect(ids(await repository.instances({ rootId: 'm-root' }))).toEqual(M_TREE.filter((id) => id !== 'm-root'));
      expect(ids(await repository.instances({ roots: true }))).toEqual(['other-root']);
    });

    test('TH-TREE-07', async (repository) => {
      await putTree(repository);

      await repository.copy('m-root', 'm-root-copy');
      await repository.copy('z-grandchild', 'z-copy');

      const summaries = await repository.instances();
      expect(summaries.find(({ instanceId }) => instanceId === 'm-root-copy')).toMatchObject({
        parentId: null,
        rootId: 'm-root-copy',
      });
      expect(summaries.find(({ instanceId }) => instanceId === 'z-copy')).toMatchObject({
        parentId: 'b-child',
        rootId: 'm-root',
      });
      expect(ids(await repository.instances({ rootId: 'm-root-copy' }))).toEqual(['m-root-copy']);
      expect(ids(await repository.instances({ rootId: 'm-root' }))).toEqual([...M_TREE, 'z-copy'].sort());
    });

    test('TH-TREE-08', async (repository) => {
      await putTree(repository);
      const grandchild = TREE.find(([instanceId]) => instanceId === 'z-grandchild')![1];

      await repository.put(checkpoint('z-grandchild', 2, { meta: { ...grandchild, status: 'running', dueAt: 5 } }));
      await repository.put(checkpoint('z-grandchild', 3, { meta: grandchild }));
      await repository.rewrite({
        instanceId: 'z-grandchild',
        seq: 3,
        expectedDigest: 'digest:z-grandchild:3:',
        schema: 2,
        digest: 'digest:z-grandchild:3:rewritten',
        bytes: utf8('rewritten'),
      });
      await repository.prune('z-grandchild', { keepLast: 1 });

      const [summary] = await repository.instances({ rootId: 'm-root', after: 'q-grandchild' });
      expect(summary).toMatchObject({ instanceId: 'z-grandchild', latestSeq: 3, rootId: 'm-root' });
      expect(roots(await repository.instances())).toMatchObject({ 'm-root': 'm-root', 'b-child': 'm-root' });
    });

    test('TH-TREE-09', async (repository, store) => {
      await putTree(repository);
      const before = await repository.instances();

      const reopened = await store.reopen();

      expect(await reopened.instances()).toEqual(before);
      expect(ids(await reopened.instances({ rootId: 'm-root' }))).toEqual(M_TREE);
    });
  });
}
