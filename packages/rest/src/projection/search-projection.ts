/**
 * The search projection: what Camunda's searches read, kept from the engine's durable event feed in rows of the
 * same store (as Camunda's exporters keep its secondary storage), never on the engine's write path. It reads the
 * log after the position its last batch recorded, turns each instance the events touched into rows as it stands
 * now (and closing events into closed rows), and writes them with the new position in one batch: a batch another
 * process wrote first is read again, so several servers on one store keep one projection. It is behind the write
 * by one read of the log: woken by this engine's own saves at once, by other processes' on its next poll.
 *
 * @module
 */
import type { Repository } from '@thresher/checkpoint';
import type { Engine, EventReader, LoggedEvent } from '@thresher/engine';
import { Catalog } from '../catalog.js';
import { InstanceKeys } from '../instance-keys.js';
import { rowsOfEvents } from './batch-rows.js';

export interface SearchProjectionOptions {
  /** Its name in the store (its position, and the event reader keeping its events). Default `camunda-search`. */
  name?: string;
  /** How often it looks for other processes' events, in ms. Default 200. */
  pollMs?: number;
  /** Events read per batch. Default 500. */
  batchSize?: number;
  /**
   * How long a pass woken by this engine's own save waits for more saves to join it, in ms: under load, fewer and
   * larger batches, each one synced commit (a store with one writer shares it with the engine). Default 25.
   */
  coalesceMs?: number;
  /** Told of a failed pass (the next pass tries again). Default: `console.error`. */
  onError?: (error: unknown) => void;
  /** Told of each batch once it is written: the events it read and how many rows it wrote (how far behind it is). */
  onBatch?: (batch: { events: readonly LoggedEvent[]; rows: number }) => void;
}

/** Resolves true once the event loop has turned (its timers and I/O had their go). */
const turned = () => new Promise<boolean>((resolve) => setImmediate(() => resolve(true)));

/** How often the projection tells its event reader how far it read, at most. */
const ACKNOWLEDGE_MS = 1000;

export class SearchProjection {
  readonly name: string;
  readonly #engine: Engine;
  readonly #repository: Repository;
  readonly #catalog: Catalog;
  readonly #keys: InstanceKeys;
  readonly #batchSize: number;
  readonly #onError: (error: unknown) => void;
  readonly #onBatch: SearchProjectionOptions['onBatch'];
  readonly #stopListening: () => void;
  readonly #timer: NodeJS.Timeout;
  readonly #coalesceMs: number;
  /** A pass asked for by a save, waiting out `coalesceMs`. */
  #joining: NodeJS.Timeout | undefined;
  #reader: Promise<EventReader> | undefined;
  /** The position written last and not yet acknowledged to the event reader, and when the last acknowledgement was. */
  #unacknowledged: string | null = null;
  #acknowledgedAt = 0;
  /** The pass running now; another is asked for by `#again`. */
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  /** Start keeping the projection of `engine`'s log in `repository` (the store the engine runs on). */
  constructor(engine: Engine, repository: Repository, options: SearchProjectionOptions = {}) {
    this.name = options.name ?? 'camunda-search';
    this.#engine = engine;
    this.#repository = repository;
    this.#catalog = new Catalog(engine);
    this.#keys = new InstanceKeys(engine);
    this.#batchSize = options.batchSize ?? 500;
    this.#onError = options.onError ?? ((error) => console.error(error));
    this.#onBatch = options.onBatch;
    const pollMs = options.pollMs ?? 200;
    if (!Number.isSafeInteger(pollMs) || pollMs < 1)
      throw new RangeError(`pollMs must be a positive integer, got ${pollMs}`);
    this.#coalesceMs = options.coalesceMs ?? 25;
    if (!Number.isSafeInteger(this.#coalesceMs) || this.#coalesceMs < 0) {
      throw new RangeError(`coalesceMs must be a whole number of ms, 0 or more, got ${options.coalesceMs}`);
    }
    this.#stopListening = engine.on('checkpoint.saved', () => this.#saved());
    this.#timer = setInterval(() => this.#wake(), pollMs);
    this.#timer.unref();
    this.#wake();
  }

  /** The store the rows are kept in. */
  get repository(): Repository {
    return this.#repository;
  }

  /** Resolves once the projection has read every event logged before the call. */
  async caughtUp(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
    await this.#pass();
  }

  /** Stop reading; the rows and position stay in the store for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopListening();
    clearInterval(this.#timer);
    clearTimeout(this.#joining);
    while (this.#running !== undefined) await this.#running;
    await this.#acknowledge(true).catch((error) => this.#onError(error));
  }

  /**
   * Tell the event reader how far the projection read, so retention may delete it: at most once a second, not a
   * commit per batch (a projection that restarts reads on from its own position, whatever was acknowledged).
   */
  async #acknowledge(now: boolean): Promise<void> {
    const position = this.#unacknowledged;
    if (position === null || (!now && Date.now() - this.#acknowledgedAt < ACKNOWLEDGE_MS)) return;
    this.#unacknowledged = null;
    this.#acknowledgedAt = Date.now();
    await (await this.#registered()).acknowledge(position);
  }

  /** The event reader, registered before the first read: retention keeps every event it has not acknowledged. */
  #registered(): Promise<EventReader> {
    this.#reader ??= this.#engine.eventReader(this.name).catch((error) => {
      this.#reader = undefined;
      throw error;
    });
    return this.#reader;
  }

  /** A save of this engine's: a pass soon, with the saves that come meanwhile. */
  #saved(): void {
    if (this.#coalesceMs === 0) return this.#wake();
    this.#joining ??= setTimeout(() => {
      this.#joining = undefined;
      this.#wake();
    }, this.#coalesceMs);
  }

  #wake(): void {
    if (this.#closed) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#pass()
      .catch((error) => this.#onError(error))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.#wake();
        }
      });
  }

  /**
   * Read and project batches until the log holds nothing newer, letting the event loop turn before each: a store's
   * read may commit the engine's pending writes at once, so a pass and a busy engine could otherwise feed each other
   * promises for as long as the load lasts, and no timer or request of the process would run meanwhile.
   */
  async #pass(): Promise<void> {
    while (!this.#closed && (await turned()) && (await this.#batch())) {}
    await this.#acknowledge(false);
  }

  /**
   * One batch: true when there may be more to read at once (it read a whole batch, or another process wrote it
   * first); a batch short of a whole one read all the log held, and what is logged since waits for the next pass.
   */
  async #batch(): Promise<boolean> {
    await this.#registered();
    const after = await this.#repository.projectionPosition(this.name);
    const events = await this.#engine.events({
      ...(after === null ? {} : { after }),
      limit: this.#batchSize,
    });
    if (events.length === 0) return false;
    const position = events.at(-1)!.position;
    const put = await rowsOfEvents(events, {
      engine: this.#engine,
      repository: this.#repository,
      catalog: this.#catalog,
      keys: this.#keys,
    });
    // Another process wrote this batch first: read on from where it got.
    if (!(await this.#repository.putRows({ projection: this.name, after, position, put }))) return true;
    this.#onBatch?.({ events, rows: put.length });
    this.#unacknowledged = position;
    await this.#acknowledge(false);
    return events.length === this.#batchSize;
  }
}
