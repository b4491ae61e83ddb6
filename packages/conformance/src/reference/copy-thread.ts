import { NotFoundError, type Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectBytes,
  expectStored,
  expectWrites,
  putChain,
  putChainWithWrites,
  rejectionOf,
  write,
} from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

const seqs = (checkpoints: { seq: number }[]) => checkpoints.map(({ seq }) => seq);

/** Reference COPY_THREAD: `copy(sourceId, targetId)`. */
export function describeReferenceCopyThread<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/copy-thread.ts');

  describe('COPY_THREAD', () => {
    test('COPY_THREAD-01', async (repository) => {
      await putChain(repository, 'source', 3);

      await repository.copy('source', 'target');

      expect(await repository.list('target')).toHaveLength(3);
    });

    test('COPY_THREAD-02', async (repository) => {
      await putChain(repository, 'source', 3);

      await repository.copy('source', 'target');

      const source = await repository.list('source');
      const target = await repository.list('target');
      expect(target).toHaveLength(source.length);
      source.forEach((stored, i) => {
        expect(target[i]!.digest).toBe(stored.digest);
        expectBytes(target[i]!.bytes, stored.bytes);
      });
    });

    test('COPY_THREAD-03', async (repository) => {
      await putChain(repository, 'source', 2, {
        definitionDigest: 'd'.repeat(64),
        meta: {
          businessKey: 'po-7',
          dueAt: 1_700_000_000_000,
          subscriptions: [{ name: 'payment', key: 'po-7' }],
        },
      });

      await repository.copy('source', 'target');

      const summaries = await repository.instances();
      const source = summaries.find(({ instanceId }) => instanceId === 'source');
      const target = summaries.find(({ instanceId }) => instanceId === 'target');
      // A copy of a root is a root of its own, with a serial of its own.
      expect(target).toEqual({ ...source!, instanceId: 'target', rootId: 'target', serial: expect.any(Number) });
      expect(target!.serial).toBeGreaterThan(source!.serial);
      expect(target).toMatchObject({ latestSeq: 2, businessKey: 'po-7', dueAt: 1_700_000_000_000 });
    });

    test('COPY_THREAD-04', async (repository) => {
      await repository.put(checkpoint('root-1', 1));
      await repository.put(checkpoint('child-1', 1, { meta: { parentId: 'root-1', callNodeId: 'call_1' } }));

      await repository.copy('root-1', 'root-2');
      await repository.copy('child-1', 'child-2');

      expect(await repository.list('root-2')).toHaveLength(1);
      expect(await repository.list('child-2')).toHaveLength(1);
      expect(
        (await repository.instances()).map(({ instanceId, parentId, callNodeId }) => [
          instanceId,
          parentId,
          callNodeId,
        ]),
      ).toEqual([
        ['child-1', 'root-1', 'call_1'],
        ['child-2', 'root-1', 'call_1'],
        ['root-1', null, null],
        ['root-2', null, null],
      ]);
    });

    test('COPY_THREAD-05', async (repository) => {
      const entries = [write('task-b', 0, 'write_val'), write('task-a', 1, 'second')];
      await putChainWithWrites(repository, 'source', 2, { 1: [write('task-c', 0, 'first')], 2: entries });

      await repository.copy('source', 'target');

      expectWrites((await repository.get('target'))!.writes, entries);
      expectWrites((await repository.get('target', 1))!.writes, [write('task-c', 0, 'first')]);
    });

    test('COPY_THREAD-06', async (repository) => {
      await repository.put(checkpoint('source', 1));
      await repository.put(checkpoint('source', 4, { parentSeq: 1 }));
      await repository.put(checkpoint('source', 9, { parentSeq: 4 }));

      await repository.copy('source', 'target');

      const target = await repository.list('target');
      expect(target.map(({ seq, parentSeq }) => [seq, parentSeq])).toEqual([
        [1, null],
        [4, 1],
        [9, 4],
      ]);
      expect(seqs(target)).toEqual(seqs(await repository.list('source')));
    });

    test('COPY_THREAD-07', async (repository) => {
      const chain = await putChain(repository, 'source', 3);
      await repository.putWrites('source', 3, [write('task-1', 0, 'kept')]);

      await repository.copy('source', 'target');

      const source = await repository.list('source');
      expect(seqs(source)).toEqual([1, 2, 3]);
      chain.forEach((stored, i) => {
        expectStored(source[i], stored, i === 2 ? [write('task-1', 0, 'kept')] : []);
      });
    });

    test('COPY_THREAD-08', async (repository) => {
      await putChain(repository, 'other', 1);

      const error = await rejectionOf(repository.copy('missing', 'target'));

      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ code: 'THRESHER_NOT_FOUND', instanceId: 'missing' });
      expect(await repository.list('target')).toEqual([]);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['other']);
    });
  });
}
