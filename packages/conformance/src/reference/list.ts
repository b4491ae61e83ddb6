import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectStored,
  expectWrites,
  putChain,
  putChainWithWrites,
  write,
} from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

/** Reference LIST: `list(instanceId, { before, limit })`, an instance's history oldest first. */
export function describeReferenceList<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/list.ts');

  describe('LIST', () => {
    test('LIST-01', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(await repository.list('thread-1')).toHaveLength(4);
    });

    test('LIST-02', async (repository) => {
      await putChain(repository, 'thread-1', 4);
      await putChain(repository, 'thread-2', 2);

      expect(await repository.list('thread-unknown')).toEqual([]);
      expect((await repository.list('thread-1')).map(({ instanceId }) => instanceId)).toEqual(
        Array(4).fill('thread-1'),
      );
    });

    test('LIST-03', async (repository) => {
      await repository.put(checkpoint('root-1', 1));
      await repository.put(checkpoint('child-1', 1, { meta: { parentId: 'root-1', callNodeId: 'call_1' } }));

      expect((await repository.list('root-1')).map(({ instanceId }) => instanceId)).toEqual(['root-1']);
      expect((await repository.list('child-1')).map(({ instanceId }) => instanceId)).toEqual(['child-1']);
    });

    test('LIST-04', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(seqs(await repository.list('thread-1'))).toEqual([1, 2, 3, 4]);
    });

    test('LIST-05', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(seqs(await repository.list('thread-1', { before: 3 }))).toEqual([1, 2]);
    });

    test('LIST-06', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(seqs(await repository.list('thread-1', { limit: 1 }))).toEqual([1]);
    });

    test('LIST-07', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(seqs(await repository.list('thread-1', { before: 3 }))).toEqual([1, 2]);
      expect(seqs(await repository.list('thread-1', { before: 2 }))).toEqual([1]);
    });

    test('LIST-08', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(await repository.list('thread-1', { limit: 1 })).toHaveLength(1);
      expect(await repository.list('thread-1', { limit: 2 })).toHaveLength(2);
    });

    test('LIST-09', async (repository) => {
      await putChain(repository, 'thread-1', 4);

      expect(seqs(await repository.list('thread-1', { before: 4, limit: 1 }))).toEqual([1]);
    });

    test('LIST-10', async (repository) => {
      await putChain(repository, 'thread-1', 4);
      await putChain(repository, 'thread-2', 4);

      const page = await repository.list('thread-1', { before: 4, limit: 2 });

      expect(page.map(({ instanceId, seq }) => `${instanceId}@${seq}`)).toEqual(['thread-1@1', 'thread-1@2']);
    });

    test('LIST-11', async (repository) => {
      await putChain(repository, 'thread-1', 2);

      expect(await repository.list('thread-unknown', { before: 10, limit: 5 })).toEqual([]);
    });

    test('LIST-12', async (repository) => {
      const [first] = await putChain(repository, 'thread-1', 1);
      await repository.putWrites('thread-1', 1, [write('task-1', 0, '["ch","val"]')]);

      const [listed] = await repository.list('thread-1');

      expectStored(listed, first!, [write('task-1', 0, '["ch","val"]')]);
    });

    test('LIST-13', async (repository) => {
      await repository.put(checkpoint('root-1', 1));
      for (const child of ['child-1', 'child-2']) {
        await repository.put(checkpoint(child, 1, { meta: { parentId: 'root-1', callNodeId: child } }));
      }

      expect((await repository.list('root-1')).map(({ instanceId }) => instanceId)).toEqual(['root-1']);
    });

    test('LIST-14', async (repository) => {
      await putChain(repository, 'thread-1', 5);

      expect(seqs(await repository.list('thread-1', { before: 4, limit: 2 }))).toEqual([1, 2]);
      expect(seqs(await repository.list('thread-1', { before: 2, limit: 5 }))).toEqual([1]);
      expect(seqs(await repository.list('thread-1', { before: 99, limit: 99 }))).toEqual([1, 2, 3, 4, 5]);
    });

    test('LIST-15', async (repository) => {
      await putChain(repository, 'thread-1', 3);

      expect(await repository.list('thread-1', { before: 1 })).toEqual([]);
      expect(await repository.list('thread-1', { before: 0, limit: 3 })).toEqual([]);
    });

    test('LIST-16', async (repository) => {
      await putChainWithWrites(repository, 'thread-1', 3, {
        1: [write('score-99', 0, '99')],
        2: [write('score-42', 0, '42'), write('run-abc', 0, 'run')],
      });

      const scored42 = (await repository.list('thread-1')).filter(({ writes }) =>
        writes.some(({ taskId }) => taskId === 'score-42'),
      );

      expect(seqs(scored42)).toEqual([2]);
      expectWrites(scored42[0]!.writes, [write('score-42', 0, '42'), write('run-abc', 0, 'run')]);
    });
  });
}
