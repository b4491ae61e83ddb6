import type { Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectWrites, putChain, utf8, write } from '../fixtures.js';
import type { RepositoryContractInitializer } from '../types.js';

/** Reference PUT_WRITES: `putWrites`, journal entries filed against one checkpoint. */
export function describeReferencePutWrites<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'reference/put-writes.ts');

  describe('PUT_WRITES', () => {
    test('PUT_WRITES-01', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      await repository.putWrites('thread-1', 1, [write('task-1', 0, '["channel1","value1"]')]);

      expectWrites((await repository.get('thread-1'))!.writes, [write('task-1', 0, '["channel1","value1"]')]);
    });

    test('PUT_WRITES-02', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      const entries = [
        write('task-1', 0, '["ch1","v1"]'),
        write('task-1', 1, '["ch2","v2"]'),
        write('task-1', 2, '["ch3","v3"]'),
      ];

      await repository.putWrites('thread-1', 1, entries);

      expectWrites((await repository.get('thread-1'))!.writes, entries);
    });

    test('PUT_WRITES-03', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'from_t1')]);
      await repository.putWrites('thread-1', 1, [write('task-2', 0, 'from_t2')]);

      expectWrites((await repository.get('thread-1'))!.writes, [
        write('task-1', 0, 'from_t1'),
        write('task-2', 0, 'from_t2'),
      ]);
    });

    test('PUT_WRITES-04', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      await repository.putWrites('thread-1', 1, [write('0b9f-task-7e1c', 0, 'v')]);

      expect((await repository.get('thread-1'))!.writes.map(({ taskId }) => taskId)).toEqual(['0b9f-task-7e1c']);
    });

    test('PUT_WRITES-05', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      const value = utf8('{"channel":"my_channel","value":{"data":123}}');

      await repository.putWrites('thread-1', 1, [{ taskId: 'task-1', index: 0, value }]);

      expectWrites((await repository.get('thread-1'))!.writes, [{ taskId: 'task-1', index: 0, value }]);
    });

    test('PUT_WRITES-06', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      await repository.putWrites('thread-1', 1, [write('a:b:c', 0, 'v')]);

      expectWrites((await repository.get('thread-1'))!.writes, [write('a:b:c', 0, 'v')]);
    });

    test('PUT_WRITES-07', async (repository) => {
      await putChain(repository, 'thread-1', 1);

      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'first')]);
      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'first')]);

      expectWrites((await repository.get('thread-1'))!.writes, [write('task-1', 0, 'first')]);
    });

    test('PUT_WRITES-08', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      const entries = [
        write('task-1', -1, '{"__error__":"something went wrong"}'),
        write('task-1', -3, '{"__interrupt__":{"reason":"human_input"}}'),
      ];

      await repository.putWrites('thread-1', 1, entries);

      expectWrites((await repository.get('thread-1'))!.writes, entries);
    });

    test('PUT_WRITES-09', async (repository) => {
      await repository.put(checkpoint('root-1', 1));
      await repository.put(checkpoint('child-1', 1, { meta: { parentId: 'root-1', callNodeId: 'call_1' } }));

      await repository.putWrites('root-1', 1, [write('task-1', 0, 'root_val')]);
      await repository.putWrites('child-1', 1, [write('task-1', 0, 'child_val')]);

      expectWrites((await repository.get('root-1'))!.writes, [write('task-1', 0, 'root_val')]);
      expectWrites((await repository.get('child-1'))!.writes, [write('task-1', 0, 'child_val')]);
    });

    test('PUT_WRITES-10', async (repository) => {
      await putChain(repository, 'thread-1', 1);
      await repository.putWrites('thread-1', 1, [write('task-1', 0, 'on seq 1')]);

      await repository.put(checkpoint('thread-1', 2));

      expect((await repository.get('thread-1'))!.writes).toEqual([]);
      expectWrites((await repository.get('thread-1', 1))!.writes, [write('task-1', 0, 'on seq 1')]);
    });
  });
}
