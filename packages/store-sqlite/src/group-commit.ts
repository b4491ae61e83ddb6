import type { SqliteDatabase, SqliteTransaction } from './driver.js';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: checkpoint writes made in the same turn of the event loop (many instances reaching a persist
 * point together) commit in one transaction — one fsync for all of them — each in a savepoint of its own, so
 * one refused write rolls back alone and the others commit. Each caller's promise settles only once the
 * transaction holding its write committed: still durable before anything it records leaves.
 *
 * Order is kept: any other operation of the repository first flushes what is queued (`flush`), so a read or a
 * lease change always sees every write issued before it.
 */
export class GroupCommit {
  readonly #batch: SqliteTransaction<[Array<() => unknown>], Outcome[]>;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(db: SqliteDatabase) {
    // A nested transaction function runs as a savepoint: a write that throws rolls back to it, alone.
    this.#batch = db.transaction((runs: Array<() => unknown>) =>
      runs.map((run): Outcome => {
        try {
          return { ok: true, value: run() };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  /** Queue a write (a transaction function of the repository); resolves once its transaction committed. */
  submit<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  /** Commit every queued write now, in one transaction. */
  flush(): void {
    this.#scheduled = false;
    const pending = this.#queue;
    if (pending.length === 0) return;
    this.#queue = [];
    // One write alone needs no savepoint around it: its own transaction is the batch.
    if (pending.length === 1) {
      const [only] = pending as [Pending];
      try {
        only.resolve(only.run());
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.#batch.immediate(pending.map((write) => write.run));
    } catch (error) {
      // The commit itself failed (the disk, the lock): none of them is durable.
      for (const write of pending) write.reject(error);
      return;
    }
    outcomes.forEach((outcome, index) => {
      const write = pending[index]!;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }
}
