import { describe, expect, it } from 'vitest';
import type { PgClientLike } from '../src/driver.js';
import {
  type GroupedWrite,
  JOINT_BYTES_PER_STATEMENT,
  type Joinable,
  lanesOf,
  PgGroupCommit,
  statementRuns,
} from '../src/group-commit.js';

/**
 * A transaction runner that records each transaction's writes, committing them only when none throws, and
 * writes that record themselves as committed on their own when run alone (a put's autocommit statement).
 */
function recorder() {
  const committed: string[][] = [];
  let transactions = 0;
  /** Each transaction's client holds what it wrote until it commits: transactions may run side by side. */
  const pendingOf = (client: PgClientLike) => (client as unknown as { pending: string[] }).pending;
  const transaction = async <T>(work: (client: PgClientLike) => Promise<T>): Promise<T> => {
    transactions++;
    const client = { pending: [] as string[] } as unknown as PgClientLike;
    const value = await work(client);
    committed.push(pendingOf(client));
    return value;
  };
  const write = (name: string, fails = false, key = name): GroupedWrite<string, Named> => ({
    key,
    async alone() {
      await Promise.resolve();
      if (fails) throw new Error(`${name} refused`);
      committed.push([name]);
      return name;
    },
    async inBatch(client) {
      await Promise.resolve();
      if (fails) throw new Error(`${name} refused`);
      pendingOf(client).push(name);
      return name;
    },
  });
  /** A put: joinable on its instance `key`; alone or in a batch on its own it records its name. */
  const put = (name: string, key: string, bytes = 1): GroupedWrite<string, Named> => ({
    ...write(name, false, key),
    joinable: { key, bytes, name },
  });
  /** The joint: records the names it was given as one statement, `joint:a+b`, or refuses one `refused`. */
  const joint = (refused?: string) => async (client: PgClientLike, writes: Named[]) => {
    await Promise.resolve();
    const names = writes.map(({ name }) => name);
    if (refused !== undefined && names.includes(refused)) throw new Error(`${refused} refused`);
    pendingOf(client).push(`joint:${names.join('+')}`);
    return names;
  };
  return { committed, transaction, write, put, joint, transactions: () => transactions };
}

interface Named extends Joinable {
  name: string;
}

describe('PostgreSQL group commit', () => {
  it('should run a lone write on its own, and commit the writes arriving meanwhile together in one transaction', async () => {
    // given a group commit and one write, then three more issued while the first commits
    const { committed, transaction, write, transactions } = recorder();
    const group = new PgGroupCommit(transaction);
    const first = group.submit(write('a'));
    const rest = [group.submit(write('b')), group.submit(write('c')), group.submit(write('d'))];

    // when they settle
    const values = await Promise.all([first, ...rest]);

    // then the first committed alone, outside any batch transaction, and the others in one transaction,
    // each caller given its own value
    expect(values).toEqual(['a', 'b', 'c', 'd']);
    expect(committed).toEqual([['a'], ['b', 'c', 'd']]);
    expect(transactions()).toBe(1);
  });

  it('should run a batch with a refused write again one write at a time, alone: only the refused one fails', async () => {
    // given a batch in which one write is refused
    const { committed, transaction, write, transactions } = recorder();
    const group = new PgGroupCommit(transaction);
    const first = group.submit(write('a'));
    const batch = [group.submit(write('b')), group.submit(write('c', true)), group.submit(write('d'))];

    // when they settle
    const outcomes = await Promise.allSettled([first, ...batch]);

    // then nothing of the failed batch was committed with it; b and d were, each alone, and c was refused
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('c refused'));
    expect(committed).toEqual([['a'], ['b'], ['d']]);
    expect(transactions()).toBe(1);
  });

  it('should commit a write submitted just as the last batch finished, and be idle once all have settled', async () => {
    // given a write submitted from the settling of another
    const { committed, transaction, write, transactions } = recorder();
    const group = new PgGroupCommit(transaction);
    let late: Promise<unknown> | undefined;
    const first = group.submit(write('a')).then((value) => {
      late = group.submit(write('b'));
      return value;
    });

    // when the group is asked to be idle
    await first;
    await group.idle();

    // then the late write was committed too, each alone, with no transaction around either
    await expect(late).resolves.toBe('b');
    expect(committed).toEqual([['a'], ['b']]);
    expect(transactions()).toBe(0);
  });

  it("should send a batch's consecutive puts to the joint as one statement, in the batch's order, each caller given its own value", async () => {
    // given a lone put, then a batch of four puts of different instances
    const { committed, transaction, put, joint } = recorder();
    const group = new PgGroupCommit<Named>(transaction, joint());
    const writes = [put('a1', 'a'), put('b1', 'b'), put('c1', 'c'), put('d1', 'd'), put('e1', 'e')];

    // when they settle
    const values = await Promise.all(writes.map((write) => group.submit(write)));

    // then the batch was one statement
    expect(values).toEqual(['a1', 'b1', 'c1', 'd1', 'e1']);
    expect(committed).toEqual([['a1'], ['joint:b1+c1+d1+e1']]);
  });

  it('should cut the statement at a second put of one instance and around any other write, keeping the batch order', async () => {
    // given a lone write, then a batch: two puts, a second put of b, a journal write, two more puts
    const { committed, transaction, write, put, joint } = recorder();
    const group = new PgGroupCommit<Named>(transaction, joint());
    const writes = [
      write('first'),
      put('a1', 'a'),
      put('b1', 'b'),
      put('b2', 'b'),
      put('c1', 'c'),
      write('writes-of-c'),
      put('c2', 'c'),
      put('d1', 'd'),
      put('a2', 'a'),
    ];

    // when they settle
    const values = await Promise.all(writes.map((write) => group.submit(write)));

    // then b2 began a new statement, the journal write ran on its own in its place, and a run of one put
    // ran on its own (its one statement) — all in one transaction
    expect(values).toEqual(['first', 'a1', 'b1', 'b2', 'c1', 'writes-of-c', 'c2', 'd1', 'a2']);
    expect(committed).toEqual([['first'], ['joint:a1+b1', 'joint:b2+c1', 'writes-of-c', 'joint:c2+d1+a2']]);
  });

  it('should run a batch whose joint statement failed again one write at a time, alone: only the refused one fails', async () => {
    // given a batch whose statement refuses one of its puts
    const { committed, transaction, put, joint } = recorder();
    const group = new PgGroupCommit<Named>(transaction, joint('b1'));
    const writes = [put('a1', 'a'), put('b1', 'b', 1), put('c1', 'c')];
    const refusedAlone = { ...writes[1]!, alone: () => Promise.reject(new Error('b1 refused')) };

    // when they settle
    const outcomes = await Promise.allSettled([writes[0]!, refusedAlone, writes[2]!].map((w) => group.submit(w)));

    // then nothing of the statement was kept; a1 and c1 committed alone, b1 was refused
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(committed).toEqual([['a1'], ['c1']]);
  });

  it('should commit a batch of 64 writes or more as two transactions side by side, each instance in one', async () => {
    // given a lone write, then a batch of 70: two writes of each of 35 instances (a put, then its journal)
    const { committed, transaction, write, transactions } = recorder();
    const group = new PgGroupCommit(transaction);
    const first = group.submit(write('first'));
    const keys = Array.from({ length: 35 }, (_, i) => `i${String(i).padStart(2, '0')}`);
    const writes = keys.flatMap((key) => [write(`${key}:put`, false, key), write(`${key}:writes`, false, key)]);
    const order = [...writes.filter((_, i) => i % 2 === 0), ...writes.filter((_, i) => i % 2 === 1)];

    // when they settle
    const values = await Promise.all([first, ...order.map((w) => group.submit(w))]);

    // then two transactions committed the batch, each holding all of its instances' writes, in their order
    expect(values).toHaveLength(71);
    expect(transactions()).toBe(2);
    const [lone, ...lanes] = committed;
    expect(lone).toEqual(['first']);
    expect(lanes.map((lane) => lane.length).sort()).toEqual([34, 36]);
    for (const key of keys) {
      const lane = lanes.find((names) => names.includes(`${key}:put`))!;
      expect(lane.filter((name) => name.startsWith(`${key}:`))).toEqual([`${key}:put`, `${key}:writes`]);
    }
  });

  it('should keep a batch of fewer than 64 writes in one transaction', () => {
    const writes = Array.from({ length: 63 }, (_, i) => ({ key: `i${i}` }));

    expect(lanesOf(writes, (write) => write.key)).toEqual([writes]);
    expect(lanesOf([...writes, { key: 'one more' }], (write) => write.key)).toHaveLength(2);
  });

  it('should cut the statement before the documents pass the bytes bound', () => {
    const half = JOINT_BYTES_PER_STATEMENT / 2;
    const joinable = (key: string, bytes: number) => ({ joinable: { key, bytes } });
    const writes = [joinable('a', half), joinable('b', half), joinable('c', 1), joinable('d', 2 * half)];

    expect(statementRuns(writes)).toEqual([[writes[0], writes[1]], [writes[2]], [writes[3]]]);
  });
});
