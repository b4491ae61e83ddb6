import type { PgClientLike } from './driver.js';

/** A checkpoint write as the group commit runs it: on its own, or inside a batch's transaction. */
export interface GroupedWrite<T, J extends Joinable = Joinable> {
  /**
   * Run and commit on its own: a put as its one autocommit statement (one round trip), any other write in
   * a fenced transaction of its own.
   */
  alone(): Promise<T>;
  /** Run inside the batch's open (fenced) transaction, which commits it with the others. */
  inBatch(client: PgClientLike): Promise<T>;
  /** Set on a write that can share one statement with its neighbours in a batch (a put): what the joint runs. */
  joinable?: J;
}

/** What a write brings to a joint statement: the instance it writes, and its size. */
export interface Joinable {
  readonly key: string;
  readonly bytes: number;
}

/**
 * Runs consecutive joinable writes of a batch, each of another instance, in one statement (one round trip),
 * inside the batch's transaction and in their order; answers each write's value, in that order.
 */
export type Joint<J extends Joinable> = (client: PgClientLike, writes: J[]) => Promise<unknown[]>;

/** Most bytes of documents in one joint statement, so that a batch of large ones stays far below a message's 1 GB. */
export const JOINT_BYTES_PER_STATEMENT = 64 * 1024 * 1024;

interface Pending<J extends Joinable> {
  write: GroupedWrite<unknown, J>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: checkpoint writes that arrive while another batch commits wait for the next one, and a
 * batch of several commits in one transaction — one WAL flush for all of them. A write with no company runs
 * alone (`GroupedWrite.alone`): a BEGIN and COMMIT around a single statement would cost two round trips
 * more. In a batch, consecutive joinable writes (puts) go to the joint together, one statement for all of
 * them (see {@link statementRuns}). Each caller's promise settles only once its write committed. A refusal
 * is rare (a stale writer, a lost lease), so a batch runs without a savepoint per write (two round trips
 * each): when any write of it fails — refused, or the transaction as a whole (a deadlock, a lost
 * connection) — nothing of it is stored, and each write runs again alone, so one write's trouble never
 * fails the others.
 */
export class PgGroupCommit<J extends Joinable = Joinable> {
  #queue: Pending<J>[] = [];
  #draining: Promise<void> | undefined;

  /**
   * `transaction` runs work in one (fenced) transaction of its own: a batch's. `joint` runs joinable writes
   * together; without it, each runs `inBatch`.
   */
  constructor(
    private readonly transaction: <T>(work: (client: PgClientLike) => Promise<T>) => Promise<T>,
    private readonly joint?: Joint<J>,
  ) {}

  submit<T>(write: GroupedWrite<T, J>): Promise<T> {
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

  async #alone(pending: Pending<J>): Promise<void> {
    try {
      pending.resolve(await pending.write.alone());
    } catch (error) {
      pending.reject(error);
    }
  }

  async #together(batch: Pending<J>[]): Promise<void> {
    const writes = batch.map(({ write }) => write);
    let values: unknown[];
    try {
      values = await this.transaction(async (client) => {
        const results: unknown[] = [];
        for (const run of this.joint ? statementRuns(writes) : writes.map((write) => [write])) {
          if (run.length === 1) results.push(await run[0]!.inBatch(client));
          else
            results.push(
              ...(await this.joint!(
                client,
                run.map((write) => write.joinable!),
              )),
            );
        }
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

/**
 * A batch's writes cut into runs, in order: consecutive joinable writes share a run (one statement) until one
 * writes an instance the run already writes — the joint settles a put left to the full rules after its
 * statement, so a later put of that instance must not be in it — or the documents would pass
 * {@link JOINT_BYTES_PER_STATEMENT}; any other write is a run of its own, so it keeps its place.
 */
export function statementRuns<W extends { joinable?: Joinable }>(writes: readonly W[]): W[][] {
  const runs: W[][] = [];
  let run: W[] = [];
  let keys = new Set<string>();
  let bytes = 0;
  const cut = () => {
    if (run.length > 0) runs.push(run);
    run = [];
    keys = new Set();
    bytes = 0;
  };
  for (const write of writes) {
    const { joinable } = write;
    if (joinable === undefined) {
      cut();
      runs.push([write]);
      continue;
    }
    if (keys.has(joinable.key) || (run.length > 0 && bytes + joinable.bytes > JOINT_BYTES_PER_STATEMENT)) cut();
    run.push(write);
    keys.add(joinable.key);
    bytes += joinable.bytes;
  }
  cut();
  return runs;
}
