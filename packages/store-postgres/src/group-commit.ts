import type { PgClientLike, PgQueryable } from './driver.js';

/**
 * A checkpoint write as the group commit runs it: on its own, or inside a batch's transaction; `C` is what a
 * batch runs on (a connection with its transaction open, by default).
 */
export interface GroupedWrite<T, J extends Joinable = Joinable, C extends PgQueryable = PgClientLike> {
  /** The instance it writes: a batch split into lanes keeps all the writes of one instance in one, in order. */
  readonly key: string;
  /**
   * Run and commit on its own: a put as its one autocommit statement (one round trip), any other write in
   * a fenced transaction of its own.
   */
  alone(): Promise<T>;
  /** Run inside the batch's open (fenced) transaction, which commits it with the others. */
  inBatch(client: C): Promise<T>;
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
export type Joint<J extends Joinable, C extends PgQueryable = PgClientLike> = (
  client: C,
  writes: J[],
) => Promise<unknown[]>;

/** Most bytes of documents in one joint statement, so that a batch of large ones stays far below a message's 1 GB. */
export const JOINT_BYTES_PER_STATEMENT = 64 * 1024 * 1024;

interface Pending<J extends Joinable, C extends PgQueryable> {
  write: GroupedWrite<unknown, J, C>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: checkpoint writes that arrive while another batch commits wait for the next one, and a
 * batch of several commits in one transaction — one WAL flush for all of them. A write with no company runs
 * alone (`GroupedWrite.alone`): a BEGIN and COMMIT around a single statement would cost two round trips
 * more. In a batch, consecutive joinable writes (puts) go to the joint together, one statement for all of
 * them (see {@link statementRuns}); a large batch commits as two transactions side by side ({@link lanesOf}).
 * Each caller's promise settles only once its write committed. A refusal
 * is rare (a stale writer, a lost lease), so a batch runs without a savepoint per write (two round trips
 * each): when any write of it fails — refused, or the transaction as a whole (a deadlock, a lost
 * connection) — nothing of it is stored, and each write runs again alone, so one write's trouble never
 * fails the others.
 */
export class PgGroupCommit<J extends Joinable = Joinable, C extends PgQueryable = PgClientLike> {
  #queue: Pending<J, C>[] = [];
  #draining: Promise<void> | undefined;

  /**
   * `transaction` runs work in one (fenced) transaction of its own: a batch's — or, for writes whose statements
   * each commit on their own (releases), hands it the pool. `joint` runs joinable writes together; without it,
   * each runs `inBatch`.
   */
  constructor(
    private readonly transaction: <T>(work: (client: C) => Promise<T>) => Promise<T>,
    private readonly joint?: Joint<J, C>,
  ) {}

  submit<T>(write: GroupedWrite<T, J, C>): Promise<T> {
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
      if (batch.length === 1) await this.#alone(batch[0]!);
      else await Promise.all(lanesOf(batch, (pending) => pending.write.key).map((lane) => this.#lane(lane)));
    }
  }

  /** One lane of a batch: its transaction, or its one write alone. */
  #lane(lane: Pending<J, C>[]): Promise<void> {
    return lane.length === 1 ? this.#alone(lane[0]!) : this.#together(lane);
  }

  async #alone(pending: Pending<J, C>): Promise<void> {
    try {
      pending.resolve(await pending.write.alone());
    } catch (error) {
      pending.reject(error);
    }
  }

  async #together(batch: Pending<J, C>[]): Promise<void> {
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
 * From this many writes on, a batch commits as two transactions side by side, on two connections: the
 * server then works on both with two processes (a batch of 1,000 puts is ~100 ms of one server process).
 */
export const LANES_FROM = 64;

/**
 * A batch cut into the transactions that commit it side by side (two from {@link LANES_FROM} writes on, else
 * one): all the writes of one instance go to one lane, in their order; an instance not seen yet goes to the
 * lane with fewer writes so far.
 */
export function lanesOf<W>(batch: readonly W[], keyOf: (write: W) => string): W[][] {
  if (batch.length < LANES_FROM) return [[...batch]];
  const lanes: W[][] = [[], []];
  const laneOf = new Map<string, W[]>();
  for (const write of batch) {
    const key = keyOf(write);
    let lane = laneOf.get(key);
    if (lane === undefined) {
      lane = lanes[0]!.length <= lanes[1]!.length ? lanes[0]! : lanes[1]!;
      laneOf.set(key, lane);
    }
    lane.push(write);
  }
  return lanes.filter((lane) => lane.length > 0);
}

/**
 * A batch's writes cut into runs, in order: consecutive joinable writes share a run (one
 * statement) until one writes an instance the run already writes — the joint settles a put left to the full
 * rules after its statement, so a later put of that instance must not be in it — or the documents would pass
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
    if (keys.has(joinable.key) || (run.length > 0 && bytes + joinable.bytes > JOINT_BYTES_PER_STATEMENT)) {
      cut();
    }
    run.push(write);
    keys.add(joinable.key);
    bytes += joinable.bytes;
  }
  cut();
  return runs;
}
