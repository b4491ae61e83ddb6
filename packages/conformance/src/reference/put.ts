import type { PutCheckpoint, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectConflict, expectStored, meta, putChain, utf8 } from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

/** A checkpoint whose document is `state` as JSON, derived from the seq before. */
function withState(instanceId: string, seq: number, state: unknown): PutCheckpoint {
  return checkpoint(instanceId, seq, { bytes: utf8(JSON.stringify(state)), note: JSON.stringify(state) });
}

/** The document a stored checkpoint holds, parsed. */
function stateOf(stored: { bytes: Uint8Array } | undefined): unknown {
  return JSON.parse(new TextDecoder().decode(stored!.bytes));
}

/** Reference PUT: `put`, whole documents, never overwriting a row. */
export function describeReferencePut<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/put.ts');

  describe('PUT', () => {
    test('PUT-01', async (repository) => {
      const first = checkpoint('thread-1', 1);

      expect(await repository.put(first)).toBeUndefined();

      expectStored(await repository.get(first.instanceId, first.seq), first);
    });

    test('PUT-02', async (repository) => {
      const first = withState('thread-1', 1, { msg: 'hello' });

      await repository.put(first);

      expectStored(await repository.get('thread-1'), first);
      expect(stateOf(await repository.get('thread-1'))).toEqual({ msg: 'hello' });
    });

    test('PUT-03', async (repository) => {
      const states = ['hello', 42, [1, 2, 3], { nested: true }, null, true, false, 3.25, -0.5e-7];
      for (const [i, state] of states.entries()) await repository.put(withState(`thread-${i}`, 1, { value: state }));

      for (const [i, state] of states.entries()) {
        expectStored(await repository.get(`thread-${i}`), withState(`thread-${i}`, 1, { value: state }));
        expect(stateOf(await repository.get(`thread-${i}`))).toEqual({ value: state });
      }
    });

    test('PUT-04', async (repository) => {
      const state = { channel_versions: { a: 1, b: 2, c: '00000000000000000000000000000003.0123456789' } };
      const first = withState('thread-1', 1, state);

      await repository.put(first);

      expectStored(await repository.get('thread-1'), first);
      expect(stateOf(await repository.get('thread-1'))).toStrictEqual(state);
    });

    test('PUT-05', async (repository) => {
      await repository.put(withState('thread-1', 1, { versions_seen: { node1: { ch: 1 }, node2: {} } }));

      const state = stateOf(await repository.get('thread-1')) as { versions_seen: Record<string, unknown> };

      expect(Object.keys(state.versions_seen).sort()).toEqual(['node1', 'node2']);
    });

    test('PUT-06', async (repository) => {
      const given = meta({ status: 'running', processId: 'loop', definitionId: 'step-3', businessKey: 'custom_value' });

      await repository.put(checkpoint('thread-1', 1, { meta: given }));

      expect((await repository.instances())[0]).toMatchObject(given);
    });

    test('PUT-07', async (repository) => {
      await putChain(repository, 'root-1', 1);

      const [summary] = await repository.instances({ roots: true });

      expect(summary).toMatchObject({ instanceId: 'root-1', parentId: null, callNodeId: null });
    });

    test('PUT-08', async (repository) => {
      await putChain(repository, 'root-1', 1);
      const child = checkpoint('child-abc', 1, { meta: { parentId: 'root-1', callNodeId: 'abc' } });

      await repository.put(child);

      expectStored(await repository.get('child-abc'), child);
      expect(await repository.instances({ children: true })).toMatchObject([
        { instanceId: 'child-abc', parentId: 'root-1', callNodeId: 'abc' },
      ]);
    });

    test('PUT-09', async (repository) => {
      const first = checkpoint('thread-1', 1);

      await repository.put(first);

      expectStored(await repository.get('thread-1'), first);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['thread-1']);
    });

    test('PUT-10', async (repository) => {
      const chain = await putChain(repository, 'thread-1', 3);

      for (const stored of chain) expectStored(await repository.get('thread-1', stored.seq), stored);
    });

    test('PUT-11', async (repository) => {
      const one = withState('thread-1', 1, { x: 'thread1' });
      const two = withState('thread-2', 1, { x: 'thread2' });
      await repository.put(one);
      await repository.put(two);

      expect(stateOf(await repository.get('thread-1'))).toEqual({ x: 'thread1' });
      expect(stateOf(await repository.get('thread-2'))).toEqual({ x: 'thread2' });
    });

    test('PUT-12', async (repository) => {
      await putChain(repository, 'thread-1', 2);

      expect((await repository.get('thread-1'))?.parentSeq).toBe(1);
    });

    test('PUT-13', async (repository) => {
      await repository.put(withState('thread-1', 1, { a: 'v1', b: 'v2' }));
      await repository.put(withState('thread-1', 2, { a: 'v1_updated', b: 'v2' }));

      expect(stateOf(await repository.get('thread-1', 2))).toEqual({ a: 'v1_updated', b: 'v2' });
      expect(stateOf(await repository.get('thread-1', 1))).toEqual({ a: 'v1', b: 'v2' });
    });

    test('PUT-14', async (repository) => {
      await repository.put(withState('thread-1', 1, { a: 'v1' }));
      await repository.put(withState('thread-1', 2, { a: 'v1', b: 'new' }));

      expect(stateOf(await repository.get('thread-1', 2))).toEqual({ a: 'v1', b: 'new' });
      expect(stateOf(await repository.get('thread-1', 1))).toEqual({ a: 'v1' });
    });

    test('PUT-15', async (repository) => {
      await repository.put(withState('thread-1', 1, { a: 'v1', b: 'v2' }));
      await repository.put(withState('thread-1', 2, { a: 'v1' }));

      expect(stateOf(await repository.get('thread-1'))).toEqual({ a: 'v1' });
      expect((await repository.list('thread-1')).map(stateOf)).toEqual([{ a: 'v1', b: 'v2' }, { a: 'v1' }]);
    });

    test('PUT-16', async (repository) => {
      await repository.put(checkpoint('run-abc', 1, { meta: { businessKey: 'run-abc-key' } }));

      expect((await repository.get('run-abc'))?.instanceId).toBe('run-abc');
      expect((await repository.instances())[0]).toMatchObject({ instanceId: 'run-abc', businessKey: 'run-abc-key' });
    });

    test('PUT-17', async (repository) => {
      const state = { versions_seen: { node1: { ch_a: 1, ch_b: 2 }, node2: { ch_a: 3 } }, big: 2 ** 53 - 1 };
      await repository.put(withState('thread-1', 1, {}));
      await repository.put(withState('thread-1', 2, state));

      const stored = await repository.get('thread-1');

      expect({ seq: stored?.seq, parentSeq: stored?.parentSeq }).toEqual({ seq: 2, parentSeq: 1 });
      expect(stateOf(stored)).toStrictEqual(state);
    });

    test('PUT-18', async (repository) => {
      const [first] = await putChain(repository, 'thread-1', 1);

      await repository.put({ ...first!, bytes: new Uint8Array(first!.bytes) });
      await expectConflict(repository.put(checkpoint('thread-1', 1, { note: 'replacement' })), 'thread-1', 1);

      expectStored(await repository.get('thread-1'), first!);
      expect(await repository.list('thread-1')).toHaveLength(1);
    });
  });
}
