import type { Clock } from '@thresher/engine';

interface Timer {
  id: number;
  due: number;
  callback: () => void;
  view: ClockView;
}

/** A clock one engine reads: the shared virtual time, with timers that die with the view. */
export interface ClockView extends Clock {
  /** Cancel this view's timers and refuse new ones: the engine that used it is dead. */
  dispose(): void;
  /** Resolves after `ms` of virtual time; never, once the view is disposed. */
  sleep(ms: number): Promise<void>;
}

/**
 * Virtual time for fixtures: hours of timers run in milliseconds. Nothing moves until the harness says
 * so; `advanceTo` fires due timers in due order (ties in the order they were set), with `now()` reading
 * each timer's due time while it runs.
 *
 * Driving an engine on it by hand: `await engine.settled(id)` resolves once nothing runs and the instance
 * waits — its `timers` and `retries` (jobs waiting out a backoff) list what is due on this clock, with
 * their `dueAt`; `advanceTo(dueAt)` fires them; `await engine.settled(id)` again; repeat until it ends or
 * waits on a user task, a message or an incident. Do not pass `{ timers: 'wait' }` or `{ retries: 'wait' }`
 * here: they wait for time to move, and this clock only moves when you move it.
 *
 * @example
 * const clock = new VirtualClock();
 * const engine = new Engine({ repository, handlers, clock: clock.view() });
 * let state = await engine.settled(id);
 * while (state.status === 'waiting' && (state.timers.length > 0 || state.retries.length > 0)) {
 *   clock.advanceTo(Math.min(...[...state.timers, ...state.retries].map((wait) => wait.dueAt)));
 *   state = await engine.settled(id);
 * }
 */
export class VirtualClock {
  private time: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  /** A clock for one engine; `dispose()` it when that engine is killed. */
  view(): ClockView {
    let disposed = false;
    const view: ClockView = {
      now: () => this.time,
      setTimeout: (callback, ms) => {
        if (disposed) return 0;
        const timer = { id: this.nextId++, due: this.time + Math.max(0, ms), callback, view };
        this.timers.push(timer);
        return timer.id;
      },
      clearTimeout: (handle) => {
        this.timers = this.timers.filter((timer) => timer.id !== handle);
      },
      dispose: () => {
        disposed = true;
        this.timers = this.timers.filter((timer) => timer.view !== view);
      },
      sleep: (ms) => new Promise((resolve) => view.setTimeout(resolve, ms)),
    };
    return view;
  }

  /** The earliest due time of a pending timer, if any. */
  nextDue(): number | undefined {
    let due: number | undefined;
    for (const timer of this.timers) if (due === undefined || timer.due < due) due = timer.due;
    return due;
  }

  /** Move time forward to `time`, firing every timer due by then. */
  advanceTo(time: number): void {
    for (;;) {
      const next = this.earliest();
      if (!next || next.due > time) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.time = Math.max(this.time, next.due);
      next.callback();
    }
    this.time = Math.max(this.time, time);
  }

  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  private earliest(): Timer | undefined {
    let found: Timer | undefined;
    for (const timer of this.timers)
      if (!found || timer.due < found.due || (timer.due === found.due && timer.id < found.id)) found = timer;
    return found;
  }
}
