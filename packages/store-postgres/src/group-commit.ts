import type { PgClientLike } from './driver.js';

type Work = (client: PgClientLike) => Promise<unknown>;

interface Pending {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: checkpoint writes that arrive while another batch commits wait for the next one, and a
 * batch commits in one transaction — one WAL flush for all of them. Each caller's promise settles only once
 * its transaction committed. A refusal is rare (a stale writer, a lost lease), so a batch runs without a
 * savepoint per write (two round trips each): when any write of it fails — refused, or the transaction as a
 * whole (a deadlock, a lost connection) — nothing of it is stored, and each write runs again in a
 * transaction of its own, so one write's trouble never fails the others.
 */
export class PgGroupCommit {
  #queue: Pending[] = [];
  #draining: Promise<void> | undefined;

  /** `transaction` runs work in one (fenced) transaction of its own, as every write did before batching. */
  constructor(private readonly transaction: <T>(work: (client: PgClientLike) => Promise<T>) => Promise<T>) {}

  submit<T>(work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      // A write submitted as the last batch finished: the loop had already looked.
      if (this.#queue.length > 0) this.#kick();
    });
  }

  /** Resolves once every write submitted so far has committed or been refused. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      await (batch.length === 1 ? this.#alone(batch[0]!) : this.#together(batch));
    }
  }

  async #alone(write: Pending): Promise<void> {
    try {
      write.resolve(await this.transaction(write.work));
    } catch (error) {
      write.reject(error);
    }
  }

  async #together(batch: Pending[]): Promise<void> {
    let values: unknown[];
    try {
      values = await this.transaction(async (client) => {
        const results: unknown[] = [];
        for (const write of batch) results.push(await write.work(client));
        return results;
      });
    } catch {
      // Nothing of the batch is stored: each write again, in a transaction of its own.
      for (const write of batch) await this.#alone(write);
      return;
    }
    for (const [index, value] of values.entries()) batch[index]!.resolve(value);
  }
}
