import type { Repository } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';

/** The longest delay Node's setTimeout takes as given; a later due time is looked at again then. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Instances restored per look at the store's due-timer index. */
const BATCH = 500;

/**
 * Wakes instances that are not in memory when their earliest timer is due, through the store's
 * `dueTimers` index: one clock timer for all of them, armed at the earliest due time this engine knows
 * of. What it finds due, it restores (the restore fires the timer, as for any instance owed one).
 */
export class DuePoll {
  private handle: unknown;
  private armedAt = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly repository: Repository,
    private readonly clock: Clock,
    /** Whether this engine has the instance in memory: its own timer wakes it. */
    private readonly loaded: (instanceId: string) => boolean,
    /** Restore these instances; one that cannot be (held elsewhere, broken) is for `wake` to report. */
    private readonly wake: (instanceIds: string[]) => Promise<void>,
    /** How long to wait before looking again at a due instance that could not be woken. */
    private readonly retryMs: number,
  ) {}

  /** Make sure the store is looked at by `dueAt`. */
  arm(dueAt: number): void {
    if (this.stopped || dueAt >= this.armedAt) return;
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.armedAt = dueAt;
    this.handle = this.clock.setTimeout(
      () => {
        // A store that failed to answer is asked again later; nothing is lost, the timers stay indexed.
        this.poll().catch(() => this.arm(this.clock.now() + this.retryMs));
      },
      Math.min(MAX_TIMEOUT_MS, Math.max(0, dueAt - this.clock.now())),
    );
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private async poll(): Promise<void> {
    this.handle = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const due = await this.repository.dueTimers(now, BATCH);
    await this.wake(due.map((timer) => timer.instanceId).filter((id) => !this.loaded(id)));
    if (due.length === BATCH) return this.arm(now);
    // The next one to look at: the earliest timer of an instance not in memory (or one still due, later).
    const ahead = await this.repository.dueTimers(Number.MAX_SAFE_INTEGER, 64);
    const next = ahead.find((timer) => !this.loaded(timer.instanceId));
    if (next) this.arm(next.dueAt > now ? next.dueAt : now + this.retryMs);
    else if (ahead.length === 64) this.arm(now + this.retryMs); // all in memory so far: look again later
  }
}
