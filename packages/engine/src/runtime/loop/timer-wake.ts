import type { TimerRecord } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';

/** The longest delay Node's setTimeout takes as given. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * How one instance wakes at its BPMN timers: one clock timer at the earliest due time; on waking, a
 * `timer.fired` step for every timer due by then. Timers already due fire at once, not through the clock:
 * their steps are queued before anyone can ask `settled`, and a clock moved by hand need not be moved for
 * what is already due.
 */
export class TimerWake {
  private handle: unknown;
  /** Due timers whose `timer.fired` step is queued: a second wake-up must not fire them twice. */
  private readonly firing = new Set<string>();

  constructor(
    private readonly clock: Clock,
    /** The instance's armed timers, as they are now. */
    private readonly timers: () => Iterable<TimerRecord>,
    /** Queue the `timer.fired` step of a timer; settles once it is applied (or refused). */
    private readonly fire: (timerId: string) => Promise<void>,
  ) {}

  /** Wake at `dueAt`, the earliest due time, in place of any earlier wake-up. */
  at(dueAt: number): void {
    this.cancel();
    if (dueAt <= this.clock.now()) {
      this.fireDue();
      return;
    }
    this.handle = this.clock.setTimeout(
      () => {
        this.handle = undefined;
        if (this.fireDue() === 0) this.at(dueAt);
      },
      // Node's timers hold at most 2^31-1 ms (~24.8 days); a later timer is re-checked when that runs out.
      Math.min(MAX_TIMEOUT_MS, dueAt - this.clock.now()),
    );
  }

  cancel(): void {
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }

  /** Queue a `timer.fired` step for every timer due by now that has none queued yet; returns how many. */
  private fireDue(): number {
    const now = this.clock.now();
    const ready = [...this.timers()].filter((timer) => timer.dueAt <= now && !this.firing.has(timer.id));
    ready.sort((a, b) => a.dueAt - b.dueAt);
    for (const { id } of ready) {
      this.firing.add(id);
      const forget = (): boolean => this.firing.delete(id);
      this.fire(id).then(forget, forget);
    }
    return ready.length;
  }
}
