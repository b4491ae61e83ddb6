import type { Clock } from '../common/clock.js';

/** The wall clock and Node's timers; the only place the engine reads real time. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Default retry backoff: 1 s, 2 s, 4 s, … capped at one minute. */
export function defaultBackoff(failure: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, failure - 1));
}
