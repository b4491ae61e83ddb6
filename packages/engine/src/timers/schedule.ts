import type { Expression } from '../common/feel.js';
import { CronError, looksLikeCron } from './cron.js';
import { nextCronOccurrence } from './cron-next.js';
import { DurationError, parseDuration } from './duration.js';

/**
 * How a timer is given: each an expression (FEEL from `=…`; a literal like `PT5M` becomes a FEEL string)
 * whose value is an ISO 8601 duration (`duration`), date-time (`date`), or repeating interval
 * `R3/PT10M` / `R/PT1H` / a cron expression (`cycle`).
 */
export interface TimerSpec {
  kind: 'duration' | 'date' | 'cycle';
  expression: Expression;
}

/** A timer value that cannot be scheduled; the loop raises it as an incident on the element. */
export class TimerSpecError extends Error {}

/**
 * What is left of a repeating timer, as a checkpoint's `TimerRecord.cycle` stores it: the interval and
 * the repetitions left after the next firing (null: forever). A cron cycle has no fixed interval and the
 * record has no place for its text, so it is stored as `intervalMs: 0` (see {@link isCronCycle}).
 */
export interface TimerCycle {
  intervalMs: number;
  remaining: number | null;
}

/** When a timer falls due, and the rest of its cycle. */
export interface TimerSchedule {
  dueAt: number;
  cycle: TimerCycle | null;
}

/**
 * Whether a stored cycle is a cron cycle: `intervalMs` 0 (which no interval cycle has, zero-length
 * intervals being refused) means "recompute the next firing from the element's timer expression". Cron
 * cycles repeat forever (`remaining: null`).
 */
export function isCronCycle(cycle: TimerCycle): boolean {
  return cycle.intervalMs === 0;
}

function duration(text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    if (error instanceof DurationError) throw new TimerSpecError(error.message);
    throw error;
  }
}

/** `R3/PT10M`, `R/PT1H`, or with a start date `R5/2026-01-01T09:00:00Z/PT1H`. */
const REPEATING = /^R(\d*)\/(?:([^/]+)\/)?(P[^/]+)$/;
/** A start date must say its zone: a bare local time would depend on the host's. */
const ZONED = /(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * Turn a timer's evaluated expression into its first due time: a duration from `now`, a date-time, a
 * repeating interval `R3/PT10M` (three firings, ten minutes apart) / `R/PT1H` (forever), a repeating
 * interval with a start date `R5/2026-01-01T09:00:00Z/PT1H`, or a cron expression `0 0 9 * * MON-FRI`
 * (in UTC; see `cron-next.ts`).
 *
 * A start date in the future is the first firing; a start date in the past is caught up to its first
 * repetition at or after `now` (`start + k·interval`) — the repetitions count from that firing on, the
 * ones before `now` having never fired. A cron cycle first fires at its first occurrence after `now`.
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
      if (looksLikeCron(text)) return { dueAt: nextCron(text, now), cycle: { intervalMs: 0, remaining: null } };
      const match = REPEATING.exec(text);
      if (!match) {
        throw new TimerSpecError(
          `"${text}" is not a repeating interval (R3/PT10M, R5/2026-01-01T09:00:00Z/PT1H) or a cron expression (0 0 9 * * MON-FRI)`,
        );
      }
      const intervalMs = duration(match[3]!);
      if (intervalMs <= 0) throw new TimerSpecError(`the interval of "${text}" must be longer than zero`);
      const repetitions = match[1] === '' ? null : Number(match[1]);
      if (repetitions === 0) throw new TimerSpecError(`"${text}" repeats zero times`);
      const cycle = { intervalMs, remaining: repetitions === null ? null : repetitions - 1 };
      if (match[2] === undefined) return { dueAt: now + intervalMs, cycle };
      const start = ZONED.test(match[2]) ? Date.parse(match[2]) : Number.NaN;
      if (Number.isNaN(start)) {
        throw new TimerSpecError(
          `the start "${match[2]}" of "${text}" is not an ISO 8601 date-time with an offset or Z`,
        );
      }
      const dueAt = start >= now ? start : start + Math.ceil((now - start) / intervalMs) * intervalMs;
      return { dueAt, cycle };
    }
  }
}

/** The first occurrence of a cron text strictly after `after`. */
function nextCron(text: string, after: number): number {
  let next: number | null;
  try {
    next = nextCronOccurrence(text, after);
  } catch (error) {
    if (error instanceof CronError)
      throw new TimerSpecError(`"${text}" is not a valid cron expression: ${error.message}`);
    throw error;
  }
  if (next === null)
    throw new TimerSpecError(`the cron expression "${text}" never fires (no day of the calendar matches it)`);
  return next;
}

/**
 * The next firing of a cycle whose timer just fell due at `previousDue`, or null when it is done.
 *
 * - An interval cycle goes on from its stored record ({@link nextInCycle}); `value` is not used.
 * - A cron cycle ({@link isCronCycle}) is re-derived: `value` is the element's timer expression evaluated
 *   again, at this firing, in the scope's variables. For a literal cron text that is exactly the text
 *   the timer was armed with; a FEEL expression is re-evaluated, so a changed variable changes the
 *   schedule from this firing on (and a value that is no cron expression any more starts afresh from it,
 *   as when armed). The next firing is the first occurrence after max(`previousDue`, `now`): occurrences
 *   that fell due while nothing ran are not fired, as for intervals.
 *
 * @throws TimerSpecError when a re-derived value cannot be scheduled.
 */
export function nextFiring(
  spec: TimerSpec,
  value: unknown,
  previousDue: number,
  cycle: TimerCycle,
  now: number,
): TimerSchedule | null {
  if (!isCronCycle(cycle)) return nextInCycle(previousDue, cycle, now);
  return scheduleTimer(spec, value, Math.max(previousDue, now));
}

/**
 * The next firing of an interval cycle that just fired at `dueAt`, or null when it is done. A cycle that
 * fell due while nothing ran fires once, not once per missed repetition: the next one is counted from
 * `now`. (A cron cycle is not an interval: see {@link nextFiring}.)
 */
export function nextInCycle(dueAt: number, cycle: TimerCycle, now: number): TimerSchedule | null {
  if (cycle.remaining === 0 || isCronCycle(cycle)) return null;
  let next = dueAt + cycle.intervalMs;
  if (next <= now) next = now + cycle.intervalMs;
  return {
    dueAt: next,
    cycle: { intervalMs: cycle.intervalMs, remaining: cycle.remaining === null ? null : cycle.remaining - 1 },
  };
}
