import { describe, expect, it } from 'vitest';
import type { PgClientLike } from '../src/driver.js';
import { type GroupedWrite, PgGroupCommit } from '../src/group-commit.js';

/**
 * A transaction runner that records each transaction's writes, committing them only when none throws, and
 * writes that record themselves as committed on their own when run alone (a put's autocommit statement).
 */
function recorder() {
  const committed: string[][] = [];
  const pending: string[] = [];
  let transactions = 0;
  const client = {} as PgClientLike;
  const transaction = async <T>(work: (client: PgClientLike) => Promise<T>): Promise<T> => {
    transactions++;
    const before = pending.length;
    try {
      const value = await work(client);
      committed.push(pending.splice(before));
      return value;
    } catch (error) {
      pending.splice(before);
      throw error;
    }
  };
  const write = (name: string, fails = false): GroupedWrite<string> => ({
    async alone() {
      await Promise.resolve();
      if (fails) throw new Error(`${name} refused`);
      committed.push([name]);
      return name;
    },
    async inBatch() {
      await Promise.resolve();
      if (fails) throw new Error(`${name} refused`);
      pending.push(name);
      return name;
    },
  });
  return { committed, transaction, write, transactions: () => transactions };
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
});
