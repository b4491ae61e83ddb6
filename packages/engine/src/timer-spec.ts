import { DurationError, parseDuration } from './duration.js';
import type { TimerSpec } from './model/types.js';

/** A timer value that cannot be scheduled; the loop raises it as an incident on the element. */
export class TimerSpecError extends Error {}

/** When a timer falls due, and the rest of its cycle. */
export interface TimerSchedule {
  dueAt: number;
  cycle: { intervalMs: number; remaining: number | null } | null;
}

function duration(text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    if (error instanceof DurationError) throw new TimerSpecError(error.message);
    throw error;
  }
}

const REPEATING = /^R(\d*)\/(P[^/]+)$/;

/**
 * Turn a timer's evaluated expression into its first due time: a duration from `now`, a date-time, or a
 * repeating interval `R3/PT10M` (three firings, ten minutes apart) / `R/PT1H` (forever).
 */
export function scheduleTimer(spec: TimerSpec, value: unknown, now: number): TimerSchedule {
  if (typeof value !== 'string') {
    throw new TimerSpecError(`the ${spec.kind} evaluated to ${JSON.stringify(value)}, not an ISO 8601 text`);
  }
  const text = value.trim();
  switch (spec.kind) {
    case 'duration':
      return { dueAt: now + duration(text), cycle: null };
    case 'date': {
      const at = Date.parse(text);
      if (Number.isNaN(at)) throw new TimerSpecError(`"${text}" is not an ISO 8601 date-time`);
      return { dueAt: at, cycle: null };
    }
    case 'cycle': {
      const match = REPEATING.exec(text);
      if (!match)
        throw new TimerSpecError(`"${text}" is not a repeating interval (R3/PT10M); cron cycles are not supported yet`);
      const intervalMs = duration(match[2]!);
      if (intervalMs <= 0) throw new TimerSpecError(`the interval of "${text}" must be longer than zero`);
      const repetitions = match[1] === '' ? null : Number(match[1]);
      if (repetitions === 0) throw new TimerSpecError(`"${text}" repeats zero times`);
      return {
        dueAt: now + intervalMs,
        cycle: { intervalMs, remaining: repetitions === null ? null : repetitions - 1 },
      };
    }
  }
}

/**
 * The next firing of a cycle that just fired at `dueAt`, or null when it is done. A cycle that fell due
 * while nothing ran fires once, not once per missed repetition: the next one is counted from `now`.
 */
export function nextInCycle(
  dueAt: number,
  cycle: NonNullable<TimerSchedule['cycle']>,
  now: number,
): TimerSchedule | null {
  if (cycle.remaining === 0) return null;
  let next = dueAt + cycle.intervalMs;
  if (next <= now) next = now + cycle.intervalMs;
  return {
    dueAt: next,
    cycle: { intervalMs: cycle.intervalMs, remaining: cycle.remaining === null ? null : cycle.remaining - 1 },
  };
}
