import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectStored, expectWrites, meta, putChain, write } from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

/** Reference GET_TUPLE: `get(instanceId, seq?)`. */
export function describeReferenceGetTuple<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/get-tuple.ts');

  describe('GET_TUPLE', () => {
    test('GET_TUPLE-01', async (repository) => {
      expect(await repository.get('never-put')).toBeUndefined();
    });

    test('GET_TUPLE-02', async (repository) => {
      const [, , third] = await putChain(repository, 'thread-1', 3);

      const latest = await repository.get('thread-1');

      expectStored(latest, third!);
      expect(latest?.seq).toBe(3);
    });

    test('GET_TUPLE-03', async (repository) => {
      const [first] = await putChain(repository, 'thread-1', 2);

      expectStored(await repository.get('thread-1', 1), first!);
    });

    test('GET_TUPLE-04', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      const stored = await repository.get('thread-1');

      expect({ instanceId: stored?.instanceId, seq: stored?.seq }).toEqual({ instanceId: 'thread-1', seq: 1 });
    });

    test('GET_TUPLE-05', async (repository) => {
      const first = checkpoint('thread-1', 1, {
        schema: 2,
        definitionDigest: 'f'.repeat(64),
        bytes: new TextEncoder().encode('{"k":"v"}'),
      });
      await repository.put(first);
      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'v')]);

      const stored = await repository.get('thread-1');

      expect(Object.keys(stored!).sort()).toEqual([
        'bytes',
        'definitionDigest',
        'digest',
        'instanceId',
        'parentSeq',
        'schema',
        'seq',
        'writes',
      ]);
      expectStored(stored, first, [write('task-1', 0, 'v')]);
    });

    test('GET_TUPLE-06', async (repository) => {
      const given = meta({ status: 'completed', processId: 'input_process', businessKey: 'step:-1' });
      await repository.put(checkpoint('thread-1', 1, { meta: given }));

      const [summary] = await repository.instances();

      expect(summary).toEqual({
        ...given,
        instanceId: 'thread-1',
        latestSeq: 1,
        definitionDigest: 'definition-digest-1',
        rootId: 'thread-1',
        serial: expect.any(Number),
      });
    });

    test('GET_TUPLE-07', async (repository) => {
      await putChain(repository, 'thread-1', 2);

      expect((await repository.get('thread-1', 1))?.parentSeq).toBeNull();
      expect((await repository.get('thread-1', 2))?.parentSeq).toBe(1);
    });

    test('GET_TUPLE-08', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'val')]);

      expectWrites((await repository.get('thread-1'))!.writes, [write('task-1', 0, 'val')]);
    });

    test('GET_TUPLE-09', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      const filed = [
        write('task-z', 1, 'a'),
        write('task-a', 0, 'b'),
        write('task-z', 0, 'c'),
        write('task-m', -1, 'd'),
      ];

      await repository.putWrites('thread-1', 1, filed.slice(0, 1));
      await repository.putWrites('thread-1', 1, filed.slice(1));

      expectWrites((await repository.get('thread-1'))!.writes, filed);
    });

    test('GET_TUPLE-10', async (repository) => {
      const root = checkpoint('root-1', 1, { note: 'root' });
      const child = checkpoint('root-1:child-1', 1, {
        note: 'child',
        meta: { parentId: 'root-1', callNodeId: 'call_1' },
      });
      await repository.put(root);
      await repository.put(child);

      expectStored(await repository.get('root-1'), root);
      expectStored(await repository.get('root-1:child-1'), child);
    });

    test('GET_TUPLE-11', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      expect(await repository.get('thread-1', 99)).toBeUndefined();
    });
  });
}
