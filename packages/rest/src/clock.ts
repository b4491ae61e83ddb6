import type { Clock } from '@thresher/engine';

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Pending {
  callback: () => void;
  /** Clock time the callback is due at. */
  due: number;
  /** The system timer standing in for it while the clock runs. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * The engine's clock as Camunda's clock API drives it: the system's time until pinned, then exactly the pinned
 * time, which does not advance until pinned again or reset. Every timer the engine set is judged by it: pinning
 * the clock past a timer's due time runs it then, as Zeebe fires its due timers when its clock is pinned.
 */
export class PinnableClock implements Clock {
  #pinned: number | undefined;
  readonly #pending = new Set<Pending>();

  now(): number {
    return this.#pinned ?? Date.now();
  }

  /** The time it is pinned at, or undefined while it runs. */
  get pinned(): number | undefined {
    return this.#pinned;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const pending: Pending = { callback, due: this.now() + Math.max(0, ms), timer: undefined };
    this.#pending.add(pending);
    this.#schedule(pending);
    return pending;
  }

  clearTimeout(handle: unknown): void {
    const pending = handle as Pending;
    if (!this.#pending.delete(pending)) return;
    clearTimeout(pending.timer);
  }

  /** Stop the clock at `timestamp` (epoch ms): what is due by then runs now, the rest waits for a later pin. */
  pin(timestamp: number): void {
    this.#pinned = timestamp;
    this.#rescheduleAll();
  }

  /** Let the clock run with the system's time again. */
  reset(): void {
    this.#pinned = undefined;
    this.#rescheduleAll();
  }

  #rescheduleAll(): void {
    for (const pending of this.#pending) {
      clearTimeout(pending.timer);
      pending.timer = undefined;
      this.#schedule(pending);
    }
  }

  /** A due callback runs on the next turn; a pinned clock leaves a later one waiting; a running one sets a timer. */
  #schedule(pending: Pending): void {
    const wait = pending.due - this.now();
    if (wait > 0 && this.#pinned !== undefined) return;
    // Node runs a timer of more than 2^31 - 1 ms at once: a longer wait is waited out in steps.
    if (wait > MAX_TIMER_MS) {
      pending.timer = setTimeout(() => this.#schedule(pending), MAX_TIMER_MS);
      return;
    }
    pending.timer = setTimeout(
      () => {
        if (!this.#pending.delete(pending)) return;
        pending.callback();
      },
      Math.max(0, wait),
    );
  }
}
