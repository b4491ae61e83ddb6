import type { PgClientLike } from './driver.js';

/** A checkpoint write as the group commit runs it: on its own, or inside a batch's transaction. */
export interface GroupedWrite<T> {
  /**
   * Run and commit on its own: a put as its one autocommit statement (one round trip), any other write in
   * a fenced transaction of its own.
   */
  alone(): Promise<T>;
  /** Run inside the batch's open (fenced) transaction, which commits it with the others. */
  inBatch(client: PgClientLike): Promise<T>;
}

interface Pending {
  write: GroupedWrite<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: checkpoint writes that arrive while another batch commits wait for the next one, and a
 * batch of several commits in one transaction — one WAL flush for all of them. A write with no company runs
 * alone (`GroupedWrite.alone`): a BEGIN and COMMIT around a single statement would cost two round trips
 * more. Each caller's promise settles only once its write committed. A refusal is rare (a stale writer, a
 * lost lease), so a batch runs without a savepoint per write (two round trips each): when any write of it
 * fails — refused, or the transaction as a whole (a deadlock, a lost connection) — nothing of it is stored,
 * and each write runs again alone, so one write's trouble never fails the others.
 */
export class PgGroupCommit {
  #queue: Pending[] = [];
  #draining: Promise<void> | undefined;

  /** `transaction` runs work in one (fenced) transaction of its own: a batch's. */
  constructor(private readonly transaction: <T>(work: (client: PgClientLike) => Promise<T>) => Promise<T>) {}

  submit<T>(write: GroupedWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
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

  async #alone(pending: Pending): Promise<void> {
    try {
      pending.resolve(await pending.write.alone());
    } catch (error) {
      pending.reject(error);
    }
  }

  async #together(batch: Pending[]): Promise<void> {
    let values: unknown[];
    try {
      values = await this.transaction(async (client) => {
        const results: unknown[] = [];
        for (const { write } of batch) results.push(await write.inBatch(client));
        return results;
      });
    } catch {
      // Nothing of the batch is stored: each write again, on its own.
      for (const pending of batch) await this.#alone(pending);
      return;
    }
    for (const [index, value] of values.entries()) batch[index]!.resolve(value);
  }
}
