import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectStored, putChain } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';
import { expectParentLink, visibleState } from './write-rule-fixtures.js';

/** A called child's checkpoint: linked to `parentId` through the call node `callNodeId`. */
const child = (instanceId: string, seq: number, parentId: string | null, callNodeId: string | null) =>
  checkpoint(instanceId, seq, { meta: { parentId, callNodeId } });

/**
 * Parent links are whole: `parentId` and `callNodeId` come together, and a child's parent is stored when the
 * link is made. A link once made stays valid when its parent is deleted (`delete` leaves children).
 */
export function describeParentLinks<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'parent-links.ts');

  describe('parent links', () => {
    test('TH-LINK-01', async (repository) => {
      await putChain(repository, 'root', 1);
      const called = child('child', 1, 'root', 'call_billing');

      await repository.put(called);

      expectStored(await repository.get('child'), called);
      expect(await repository.instances({ parentId: 'root' })).toMatchObject([
        { instanceId: 'child', parentId: 'root', callNodeId: 'call_billing' },
      ]);
    });

    test('TH-LINK-02', async (repository) => {
      await putChain(repository, 'root', 1);
      const before = await visibleState(repository);

      await expectParentLink(
        repository.put(child('child', 1, 'no-such-root', 'call_billing')),
        'child',
        'meta.parentId',
      );

      expect(await visibleState(repository)).toEqual(before);
      expect(await repository.get('child')).toBeUndefined();
    });

    test('TH-LINK-03', async (repository) => {
      await putChain(repository, 'root', 1);

      await expectParentLink(repository.put(child('child', 1, 'root', null)), 'child', 'meta.callNodeId');
      await expectParentLink(repository.put(child('child', 1, null, 'call_billing')), 'child', 'meta.parentId');

      expect(await repository.get('child')).toBeUndefined();
      await repository.put(child('child', 1, null, null));
      await expectParentLink(repository.put(child('child', 2, null, 'call_billing')), 'child', 'meta.parentId');
      expect((await repository.get('child'))?.seq).toBe(1);
    });

    test('TH-LINK-04', async (repository) => {
      await expectParentLink(repository.put(child('loop', 1, 'loop', 'call_self')), 'loop', 'meta.parentId');
      await putChain(repository, 'loop', 1);

      await expectParentLink(repository.put(child('loop', 2, 'loop', 'call_self')), 'loop', 'meta.parentId');

      expect((await repository.get('loop'))?.seq).toBe(1);
    });

    test('TH-LINK-05', async (repository) => {
      await putChain(repository, 'root', 1);
      await repository.put(child('child', 1, 'root', 'call_billing'));

      await repository.delete('root');
      await repository.put(child('child', 2, 'root', 'call_billing'));

      expect(await repository.instances()).toMatchObject([{ instanceId: 'child', latestSeq: 2, parentId: 'root' }]);
    });

    test('TH-LINK-06', async (repository) => {
      await putChain(repository, 'root-a', 1);
      await putChain(repository, 'root-b', 1);
      await repository.put(child('child', 1, 'root-a', 'call_billing'));

      await expectParentLink(repository.put(child('child', 2, 'root-c', 'call_billing')), 'child', 'meta.parentId');
      expect(await repository.instances({ parentId: 'root-a' })).toMatchObject([{ instanceId: 'child', latestSeq: 1 }]);

      await repository.put(child('child', 2, 'root-b', 'call_billing'));
      expect(await repository.instances({ parentId: 'root-b' })).toMatchObject([{ instanceId: 'child', latestSeq: 2 }]);
    });

    test('TH-LINK-07', async (repository) => {
      const called = child('child', 1, 'root', 'call_billing');
      await expectParentLink(repository.put(called), 'child', 'meta.parentId');

      await putChain(repository, 'root', 1);
      await repository.put(called);

      expectStored(await repository.get('child'), called);
    });
  });
}
