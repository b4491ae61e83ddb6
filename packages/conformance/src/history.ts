import type { LogEntry, PutCheckpoint, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, expectBytes, logged, rejectionOf, utf8 } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** What a log entry is, positions aside: instance and seq. */
const keys = (entries: LogEntry[]) => entries.map(({ instanceId, seq }) => `${instanceId}@${seq}`);

/** Put these checkpoints one after the other, each committed before the next. */
async function putInTurn(repository: Repository, ...checkpoints: PutCheckpoint[]): Promise<void> {
  for (const next of checkpoints) await repository.put(next);
}

/** Put seqs 1..count of an instance, each filing its log entry. */
async function putLogged(repository: Repository, instanceId: string, count: number): Promise<void> {
  for (let seq = 1; seq <= count; seq++) await repository.put(logged(instanceId, seq));
}

/** `Repository#history`: the log entries puts filed, in the order the store committed them, read on from a position. */
export function describeHistory<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'history.ts');

  describe('Repository#history', () => {
    test('TH-HISTORY-01', async (repository) => {
      const a1 = logged('order-a', 1);
      const b1 = logged('order-b', 1, { log: '\u0000\u00ff binary and ünïcode' });
      const a2 = checkpoint('order-a', 2);
      const a3 = logged('order-a', 3);
      await putInTurn(repository, a1, b1, a2, a3);
      await repository.putWrites('order-a', 3, [{ taskId: 'task', index: 0, value: new Uint8Array([1]) }]);

      const entries = await repository.history();

      expect(keys(entries)).toEqual(['order-a@1', 'order-b@1', 'order-a@3']);
      for (const [index, put] of [a1, b1, a3].entries()) {
        const entry = entries[index]!;
        expect(Object.keys(entry).sort()).toEqual(['bytes', 'instanceId', 'position', 'seq']);
        expectBytes(entry.bytes, put.log!);
        expect(typeof entry.position).toBe('string');
      }
    });

    test('TH-HISTORY-02', async (repository) => {
      await putInTurn(repository, logged('order-a', 1), logged('order-b', 1));
      const [, second] = await repository.history();

      await putInTurn(repository, logged('order-a', 2), logged('order-c', 1));
      const rest = await repository.history({ after: second!.position });

      expect(keys(rest)).toEqual(['order-a@2', 'order-c@1']);
      const all = await repository.history();
      expect(new Set(all.map(({ position }) => position)).size).toBe(4);
      expect(await repository.history({ after: rest[1]!.position })).toEqual([]);
    });

    test('TH-HISTORY-03', async (repository) => {
      await putInTurn(repository, logged('order-a', 1), logged('order-b', 1), logged('order-a', 2));
      await putInTurn(repository, logged('order-b', 2), logged('order-a', 3));
      const all = await repository.history();

      expect(keys(await repository.history({ instanceId: 'order-a' }))).toEqual([
        'order-a@1',
        'order-a@2',
        'order-a@3',
      ]);
      // After order-b@1's position: order-a's entries put later.
      const after = all[1]!.position;
      expect(keys(await repository.history({ instanceId: 'order-a', after }))).toEqual(['order-a@2', 'order-a@3']);
      expect(keys(await repository.history({ instanceId: 'order-b', after }))).toEqual(['order-b@2']);
    });

    test('TH-HISTORY-04', async (repository) => {
      await putLogged(repository, 'order-a', 4);

      expect(keys(await repository.history({ limit: 2 }))).toEqual(['order-a@1', 'order-a@2']);
      expect(await repository.history({ limit: 0 })).toEqual([]);
      const [first] = await repository.history({ limit: 1 });
      expect(keys(await repository.history({ after: first!.position, limit: 2 }))).toEqual(['order-a@2', 'order-a@3']);
    });

    test('TH-HISTORY-05', async (repository) => {
      await putLogged(repository, 'order-a', 2);

      for (const after of ['', 'not a position', '-1', '1.5', ' 1', 12 as unknown as string]) {
        expect(await rejectionOf(repository.history({ after }))).toBeInstanceOf(RangeError);
      }
      for (const limit of [-1, 1.5, Number.NaN]) {
        expect(await rejectionOf(repository.history({ limit }))).toBeInstanceOf(RangeError);
      }
      expect(await repository.history({ instanceId: 'missing' })).toEqual([]);
      expect(await repository.history({ instanceId: 'bad\u0000id' })).toEqual([]);
    });

    test('TH-HISTORY-06', async (repository) => {
      await putLogged(repository, 'order-a', 3);
      await putLogged(repository, 'order-b', 1);
      await repository.prune('order-a', { keepLast: 1 });
      expect(keys(await repository.history())).toEqual(['order-a@1', 'order-a@2', 'order-a@3', 'order-b@1']);

      // order-b holds the newest position; deleted, its position is not handed out again.
      const newest = (await repository.history()).at(-1)!;
      await repository.delete('order-b');
      expect(keys(await repository.history())).toEqual(['order-a@1', 'order-a@2', 'order-a@3']);
      await repository.put(logged('order-c', 1));

      expect(keys(await repository.history({ after: newest.position }))).toEqual(['order-c@1']);
    });

    test('TH-HISTORY-07', async (repository) => {
      await putLogged(repository, 'order-a', 2);
      await putLogged(repository, 'order-b', 1);
      const before = await repository.history();

      await repository.copy('order-a', 'order-z');

      const copied = await repository.history({ after: before[2]!.position });
      expect(keys(copied)).toEqual(['order-z@1', 'order-z@2']);
      expectBytes(copied[1]!.bytes, before[1]!.bytes);
      expect(keys(await repository.history({ instanceId: 'order-a' }))).toEqual(['order-a@1', 'order-a@2']);
    });

    test('TH-HISTORY-08', async (repository, store) => {
      await putLogged(repository, 'order-a', 2);
      const [, last] = await repository.history();
      await repository.close();

      const reopened = await store.reopen();
      await reopened.put(logged('order-b', 1));

      expect(keys(await reopened.history({ after: last!.position }))).toEqual(['order-b@1']);
    });

    test('TH-HISTORY-09', async (repository, store) => {
      const other = await store.connect();
      await repository.put(logged('order-a', 1));
      await other.put(logged('order-b', 1));
      await repository.put(logged('order-a', 2));

      expect(keys(await other.history())).toEqual(['order-a@1', 'order-b@1', 'order-a@2']);
      const [first] = await repository.history();
      expect(keys(await repository.history({ after: first!.position }))).toEqual(['order-b@1', 'order-a@2']);
    });

    test('TH-HISTORY-10', async (repository) => {
      await putInTurn(repository, logged('order-a', 1), checkpoint('order-a', 2), logged('order-a', 3));
      await putInTurn(repository, logged('order-b', 1));
      const log = (seq: number) => utf8(`log order-a@${seq}`);

      const latest = await repository.get('order-a');
      const listed = await repository.list('order-a');
      const many = await repository.getMany(['order-b', 'order-a']);

      expectBytes(latest!.log!, log(3));
      expectBytes((await repository.get('order-a', 1))!.log!, log(1));
      expect(await repository.get('order-a', 2)).not.toHaveProperty('log');
      expect(listed.map(({ seq, log }) => [seq, log !== undefined])).toEqual([
        [1, true],
        [2, false],
        [3, true],
      ]);
      expectBytes(listed[2]!.log!, log(3));
      expectBytes(many[0]!.log!, utf8('log order-b@1'));
      expectBytes(many[1]!.log!, log(3));
    });

    test('TH-HISTORY-11', async (repository) => {
      const first = logged('order-a', 1);
      await repository.put(first);

      await repository.put(first);
      const refused = await rejectionOf(repository.put(logged('order-a', 1, { note: 'other bytes' })));
      const stale = await rejectionOf(repository.put(logged('order-a', 5, { parentSeq: 3 })));

      expect(refused).toBeDefined();
      expect(stale).toBeDefined();
      expect(keys(await repository.history())).toEqual(['order-a@1']);
    });
  });
}
