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
import type { Engine, EventReader } from '@thresher/engine';
import { Catalog } from '../catalog.js';
import { InstanceKeys } from '../instance-keys.js';
import { rowsOfEvents } from './batch-rows.js';

export interface SearchProjectionOptions {
  /** The projection's name in the store (its position, and the event reader keeping its events). Default `camunda-search`. */
  name?: string;
  /** How often it looks for other processes' events, in ms. Default 200. */
  pollMs?: number;
  /** Events read per batch. Default 500. */
  batchSize?: number;
  /** Told of a failed pass (the next pass tries again). Default: `console.error`. */
  onError?: (error: unknown) => void;
}

export class SearchProjection {
  readonly name: string;
  readonly #engine: Engine;
  readonly #repository: Repository;
  readonly #catalog: Catalog;
  readonly #keys: InstanceKeys;
  readonly #batchSize: number;
  readonly #onError: (error: unknown) => void;
  readonly #stopListening: () => void;
  readonly #timer: NodeJS.Timeout;
  #reader: Promise<EventReader> | undefined;
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
    const pollMs = options.pollMs ?? 200;
    if (!Number.isSafeInteger(pollMs) || pollMs < 1)
      throw new RangeError(`pollMs must be a positive integer, got ${pollMs}`);
    this.#stopListening = engine.on('checkpoint.saved', () => this.#wake());
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
    while (this.#running !== undefined) await this.#running;
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

  /** Read and project batches until the log holds nothing newer. */
  async #pass(): Promise<void> {
    while (!this.#closed && (await this.#batch())) {}
  }

  /** One batch: true when it read events (there may be more). */
  async #batch(): Promise<boolean> {
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
    if (await this.#repository.putRows({ projection: this.name, after, position, put })) {
      this.#reader ??= this.#engine.eventReader(this.name);
      await (await this.#reader).acknowledge(position);
    }
    return true;
  }
}
