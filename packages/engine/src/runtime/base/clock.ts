import type { Clock } from '../../common/clock.js';

/**
 * The wall clock and Node's timers: what the engine reads and schedules with unless a clock is injected
 * (`EngineOptions.clock`). Real time is read past the injected clock in two places only, on purpose: a new
 * instance's id (a UUIDv7 sorts by wall time, `instance-ids.ts`) and lease renewal (a lease must outlive a
 * pause of the process however the clock is driven, `engine-parts.ts`).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Default retry backoff: 1 s, 2 s, 4 s, … capped at one minute. */
export function defaultBackoff(failure: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, failure - 1));
}
