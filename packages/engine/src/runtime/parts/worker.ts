import type { Clock } from '../../common/clock.js';
import { InstanceHeldError } from '../../common/errors.js';
import type { WorkerCounts, WorkerOptions } from '../base/types.js';
import type { EngineParts } from './engine-parts.js';

/** What a worker needs from its engine. */
export interface WorkerHost {
  clock: Clock;
  /** Instances in memory or being restored: the work under way here. */
  active(): number;
  /** Claim up to `limit` instances whose holder stopped renewing (work left behind); returns their ids. */
  claimLeftBehind(limit: number): Promise<string[]>;
  /** Claim up to `limit` instances not in memory whose BPMN timer is due; returns their ids. */
  claimDue(limit: number): Promise<string[]>;
  /**
   * Restore an instance and run it on (a claimed one, or one to claim first). False when another engine
   * holds it; rejects when it cannot be restored.
   */
  restore(instanceId: string): Promise<boolean>;
  /** Read the heads of claimed instances in one store read before they are restored; `doneRestoring` after. */
  readAhead(instanceIds: string[]): Promise<void>;
  doneRestoring(): void;
  /** Let the instances in memory take messages handed to them through the store by other engines. */
  takeHandedMessages(): Promise<void>;
  /** Counters the engine keeps: instances ended, let go of when parked, lost to another engine. */
  counts(): Pick<WorkerCounts, 'completed' | 'released' | 'lost'>;
}

const DEFAULTS = { concurrency: 16, pollMs: 1000 } as const;

/**
 * A worker: an engine that, besides what it is asked, looks at the store every `pollMs` for work no one is
 * doing — instances whose holder stopped renewing its lease (a worker that died), and instances out of
 * memory whose BPMN timer is due — and runs them, at most `concurrency` at once. Parked instances leave
 * memory (the engine dehydrates), so any worker on the store takes their next event.
 */
export interface Worker {
  /** What this worker did so far. */
  readonly counts: WorkerCounts;
  /** Stop looking for work; resolves once the current look is over. The engine's `close()` finishes the rest. */
  stop(): Promise<void>;
}

class EngineWorker implements Worker {
  private readonly concurrency: number;
  private readonly pollMs: number;
  private handle: unknown;
  private stopped = false;
  private ticking: Promise<void> = Promise.resolve();
  private readonly own = { claimed: 0, failed: 0 };

  constructor(
    private readonly host: WorkerHost,
    options: WorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? DEFAULTS.concurrency;
    this.pollMs = options.pollMs ?? DEFAULTS.pollMs;
    if (!(Number.isSafeInteger(this.concurrency) && this.concurrency > 0)) {
      throw new RangeError(`concurrency must be a positive integer, got ${options.concurrency}`);
    }
    if (!(Number.isSafeInteger(this.pollMs) && this.pollMs > 0)) {
      throw new RangeError(`pollMs must be a positive integer of milliseconds, got ${options.pollMs}`);
    }
    this.schedule(0);
  }

  get counts(): WorkerCounts {
    return { ...this.own, ...this.host.counts(), atWork: this.host.active() };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.handle !== undefined) this.host.clock.clearTimeout(this.handle);
    this.handle = undefined;
    await this.ticking;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.handle = this.host.clock.setTimeout(() => {
      this.handle = undefined;
      this.ticking = this.tick().then(
        (busy) => this.schedule(busy ? 0 : this.pollMs),
        () => this.schedule(this.pollMs), // a store that did not answer is asked again next time
      );
    }, ms);
  }

  /** One look at the store; true when it found as much work as it had room for (look again at once). */
  private async tick(): Promise<boolean> {
    await this.host.takeHandedMessages();
    let room = this.concurrency - this.host.active();
    if (room <= 0 || this.stopped) return false;
    const leftBehind = await this.host.claimLeftBehind(room);
    room -= leftBehind.length;
    const due = room > 0 ? await this.host.claimDue(room) : [];
    const found = [...leftBehind, ...due];
    // One read of their heads, not one each; then restored side by side, and each runs on by itself.
    try {
      await this.host.readAhead(found);
      await Promise.all(
        found.map((instanceId) =>
          this.host.restore(instanceId).then(
            (restored) => {
              if (restored) this.own.claimed++;
            },
            () => {
              this.own.failed++;
            },
          ),
        ),
      );
    } finally {
      this.host.doneRestoring();
    }
    return found.length > 0 && this.host.active() < this.concurrency;
  }
}

/**
 * Make an engine a worker: it dehydrates (its parked instances leave memory and release their lease), and
 * the worker's looks claim left-behind and due instances through the engine's leases and restore them.
 */
export function startEngineWorker(parts: EngineParts, options: WorkerOptions): Worker {
  const { instances, leases, repository, clock, emitter } = parts;
  parts.flags.dehydrate = true;
  for (const runtime of [...instances.values()]) runtime.retireIfParked();
  return new EngineWorker(
    {
      clock,
      active: () => instances.size,
      claimLeftBehind: (limit) => leases.claimLapsed(limit),
      claimDue: async (limit) => {
        // More than there is room for: other workers are looking at the same list and claim some of it.
        const due = await repository.dueTimers(clock.now(), 4 * limit + instances.size);
        const ids = due.map((timer) => timer.instanceId);
        return leases.claimSome(
          ids.filter((id) => !instances.has(id)),
          limit,
        );
      },
      restore: async (instanceId) => {
        try {
          await instances.runtime(instanceId);
          return true;
        } catch (error) {
          if (error instanceof InstanceHeldError) return false;
          emitter.emit('fault', { instanceId, error: error instanceof Error ? error : new Error(String(error)) });
          throw error;
        }
      },
      readAhead: (instanceIds) => instances.readAhead(instanceIds),
      doneRestoring: () => instances.dropPrefetched(),
      takeHandedMessages: () => instances.takeHandedMessages(),
      counts: () => ({ ...instances.tally }),
    },
    options,
  );
}
