import type { SqliteDatabase, SqliteTransaction } from './driver.js';

/** A write of the repository as the batch runs it: statements only, inside a transaction opened for it. */
type Work = () => unknown;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  work: Work;
  /** Whether its commit waits for the disk; a batch of writes that need not (releases) commits without a sync. */
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: checkpoint writes made in the same turn of the event loop (many instances reaching a persist
 * point together) commit in one transaction — one fsync for all of them. Each caller's promise settles only
 * once the transaction holding its write committed: still durable before anything it records leaves.
 *
 * A batch runs its writes one after the other in one transaction, behind one schema fence. A refusal is rare
 * (a stale writer, a lost lease): when any write of a batch throws, the transaction rolls back and the batch
 * runs again with each write in a savepoint of its own, so only the refused one fails and the others commit.
 *
 * Order is kept: any other operation of the repository first commits what is queued (`commitQueued`), so a read
 * or a lease change always sees every write issued before it. Those writers hear of it at the turn their batch was
 * queued for, not inside the operation's call: a reader reading often (the search projection) would otherwise run
 * the engine on in its own chain of promises, one write at a time, and the event loop would not turn while both last.
 *
 * A batch of writes that need no sync of their own (`submit(work, false)`: releases) commits under
 * `synchronous=NORMAL`: visible at once, and durable with the next synced commit, whose WAL sync covers the
 * frames before it (WAL mode stays corruption-safe under NORMAL; only those last commits may be lost to a
 * power cut, never to a killed process).
 */
export class GroupCommit {
  readonly #alone: SqliteTransaction<[Work], unknown>;
  readonly #together: SqliteTransaction<[Work[]], unknown[]>;
  readonly #apart: SqliteTransaction<[Work[]], Outcome[]>;
  #queue: Pending[] = [];
  /** Writers to tell of their committed (or refused) writes, in commit order. */
  #settled: (() => void)[] = [];
  #scheduled = false;
  /** Switches the connection to NORMAL for an unsynced batch and back; undefined when it runs NORMAL anyway. */
  readonly #unsynced: { enter: () => void; leave: () => void } | undefined;

  /** `fence` checks the schema (schema-fence.ts); it runs first in every transaction. */
  constructor(db: SqliteDatabase, fence: () => void) {
    const mode = Number(db.pragma('synchronous', { simple: true }));
    // 2 is FULL, 3 EXTRA: the levels that sync the WAL at every commit.
    // Not prepared once: SQLite applies this pragma when it prepares the statement, not when it runs it.
    if (mode >= 2) {
      this.#unsynced = {
        enter: () => db.pragma('synchronous = NORMAL'),
        leave: () => db.pragma(`synchronous = ${mode}`),
      };
    }
    this.#alone = db.transaction((work: Work) => {
      fence();
      return work();
    });
    this.#together = db.transaction((works: Work[]) => {
      fence();
      return works.map((work) => work());
    });
    // A transaction function called inside another runs as a savepoint: a write that throws rolls back alone.
    const savepoint = db.transaction((work: Work) => work());
    this.#apart = db.transaction((works: Work[]) => {
      fence();
      return works.map((work): Outcome => {
        try {
          return { ok: true, value: savepoint(work) };
        } catch (error) {
          return { ok: false, error };
        }
      });
    });
  }

  /**
   * Queue a write (statements of the repository); resolves once its transaction committed. A write that is not
   * `durable` needs no sync of its own: with only such writes, the batch commits without one.
   */
  submit<T>(work: () => T, durable = true): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, durable, resolve: resolve as (value: unknown) => void, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.flush();
      });
    });
  }

  /** Commit every queued write now, in one transaction, and tell every writer committed so far. */
  flush(): void {
    this.commitQueued();
    const settled = this.#settled;
    this.#settled = [];
    for (const settle of settled) settle();
  }

  /**
   * Commit every queued write now, in one transaction, for an operation that must come after them; their writers
   * are told at the turn their batch was queued for (it is still scheduled: a queued write schedules it).
   */
  commitQueued(): void {
    const pending = this.#queue;
    if (pending.length === 0) return;
    this.#queue = [];
    const unsynced = this.#unsynced !== undefined && pending.every((write) => !write.durable);
    if (!unsynced) return this.#commit(pending);
    try {
      this.#unsynced!.enter();
    } catch {
      return this.#commit(pending); // synced, then: slower, never less durable
    }
    try {
      this.#commit(pending);
    } finally {
      this.#unsynced!.leave();
    }
  }

  #commit(pending: Pending[]): void {
    if (pending.length === 1) {
      const [only] = pending as [Pending];
      try {
        const value = this.#alone.immediate(only.work);
        this.#settled.push(() => only.resolve(value));
      } catch (error) {
        this.#settled.push(() => only.reject(error));
      }
      return;
    }
    const works = pending.map((write) => write.work);
    let values: unknown[] | undefined;
    try {
      values = this.#together.immediate(works);
    } catch {
      // Rolled back whole: run it again write by write, each in its savepoint.
    }
    if (values !== undefined) {
      const committed = values;
      this.#settled.push(() => {
        for (const [index, write] of pending.entries()) write.resolve(committed[index]);
      });
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.#apart.immediate(works);
    } catch (error) {
      // The commit itself failed (the disk, the lock, the schema fence): none of them is durable.
      this.#settled.push(() => {
        for (const write of pending) write.reject(error);
      });
      return;
    }
    this.#settled.push(() => {
      outcomes.forEach((outcome, index) => {
        const write = pending[index]!;
        if (outcome.ok) write.resolve(outcome.value);
        else write.reject(outcome.error);
      });
    });
  }
}
