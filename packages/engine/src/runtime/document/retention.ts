/**
 * Retention: how many checkpoints an instance keeps (each put drops older ones), how long an ended instance is
 * kept (its checkpoints and its log, then it expires whole), and the sweep that expires them. The store never
 * expires an instance with a log entry a registered reader of the event feed has not read.
 *
 * @module
 */
import type { Repository } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';

/** `EngineOptions.retention`. */
export interface RetentionOptions {
  /**
   * Checkpoints each instance keeps, its latest included: how far `rollback` can go back. The put that writes a
   * new one drops the oldest beyond it, so an instance's store footprint does not grow with its age (its log
   * does, a small entry a step). A positive integer, or `Infinity` to keep every checkpoint. Default 10.
   */
  checkpoints?: number;
  /**
   * How long (ms) an ended instance is kept after it ended: then its checkpoints and its log are deleted, as
   * `expire` deletes them — but never while a registered event reader has not read its events, while it holds a
   * lease (its end not delivered yet), or while a called child of it runs. Kept for ever when absent.
   */
  ended?: number;
  /** How often (ms) the engine looks for ended instances to expire, when `ended` is set. Default 60 000. */
  sweepMs?: number;
}

/** Retention as the engine applies it. */
export interface Retention {
  /** What each put keeps (`PutCheckpoint.keepLast`); undefined: every checkpoint. */
  keepCheckpoints: number | undefined;
  endedMs: number | undefined;
  sweepMs: number;
}

export const DEFAULT_KEEP_CHECKPOINTS = 10;
const DEFAULT_SWEEP_MS = 60_000;
/** Instances expired by one call of the store. */
const EXPIRE_BATCH = 500;

/**
 * The engine's retention, checked.
 *
 * @throws RangeError naming the option that is not a positive integer (or, for `checkpoints`, `Infinity`)
 */
export function retentionOf(options: RetentionOptions = {}): Retention {
  const checkpoints = options.checkpoints ?? DEFAULT_KEEP_CHECKPOINTS;
  if (checkpoints !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(checkpoints) && checkpoints >= 1)) {
    throw new RangeError(`retention.checkpoints must be a positive integer or Infinity, got ${String(checkpoints)}`);
  }
  const { ended } = options;
  if (ended !== undefined && !(Number.isSafeInteger(ended) && ended >= 0)) {
    throw new RangeError(`retention.ended must be a non-negative integer of milliseconds, got ${String(ended)}`);
  }
  const sweepMs = options.sweepMs ?? DEFAULT_SWEEP_MS;
  if (!(Number.isSafeInteger(sweepMs) && sweepMs > 0)) {
    throw new RangeError(`retention.sweepMs must be a positive integer of milliseconds, got ${String(sweepMs)}`);
  }
  return {
    keepCheckpoints: checkpoints === Number.POSITIVE_INFINITY ? undefined : checkpoints,
    endedMs: ended,
    sweepMs,
  };
}

/**
 * Delete the instances that ended at or before `endedBefore` and that no reader, lease or running child keeps,
 * in batches until none is left; returns their ids.
 */
export async function expireEnded(repository: Repository, endedBefore: number): Promise<string[]> {
  const expired: string[] = [];
  for (;;) {
    const batch = await repository.expire({ endedBefore, limit: EXPIRE_BATCH });
    expired.push(...batch);
    if (batch.length < EXPIRE_BATCH) return expired;
  }
}

/**
 * Expires ended instances every `sweepMs` of real time (the engine's clock says when they ended and what time
 * it is). A sweep that fails is tried again at the next; unref'd, so it never keeps a process alive.
 */
export class EndedSweep {
  private readonly handle: ReturnType<typeof setInterval> | undefined;
  private running = false;

  constructor(
    private readonly repository: Repository,
    private readonly clock: Clock,
    private readonly retention: Retention,
    private readonly onError: (error: unknown) => void,
  ) {
    if (retention.endedMs === undefined) return;
    this.handle = setInterval(() => void this.sweep(), retention.sweepMs);
    this.handle.unref();
  }

  /** One sweep now (none while one runs); the ids it expired. */
  async sweep(): Promise<string[]> {
    const { endedMs } = this.retention;
    if (endedMs === undefined || this.running) return [];
    this.running = true;
    try {
      return await expireEnded(this.repository, this.clock.now() - endedMs);
    } catch (error) {
      this.onError(error);
      return [];
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    if (this.handle !== undefined) clearInterval(this.handle);
  }
}
