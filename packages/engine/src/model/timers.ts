/**
 * Timer literals (`timeDuration`, `timeDate`, `timeCycle` bodies without Zeebe's `=`), checked at
 * compile time: ISO 8601 durations, date-times with an offset or `Z`, repeating intervals
 * (`R3/PT10M`, `R/PT1H`, `R5/2026-01-01T00:00:00Z/PT1H`) and cron expressions (see `cron.ts`).
 *
 * @module
 */

import { cronIssue, looksLikeCron } from '../timers/cron.js';
import { DurationError, parseDuration } from '../timers/duration.js';
import type { TimerSpec } from './types.js';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 duration in milliseconds, read exactly as the runtime reads it (`parseDuration`), or the
 * reason it is not one.
 */
function duration(text: string): { ms: number } | { reason: string } {
  try {
    return { ms: parseDuration(text) };
  } catch (error) {
    if (error instanceof DurationError) return { reason: error.message };
    throw error;
  }
}

/** Whether `text` is an ISO 8601 date-time with an offset or `Z`, naming a real instant. */
function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match) return false;
  const [, year, month, day, hour, minute, second = '0', , offsetHours = '0', offsetMinutes = '0'] = match;
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  return (
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= daysInMonth &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHours) <= 18 &&
    Number(offsetMinutes) <= 59
  );
}

const EXAMPLES: Record<TimerSpec['kind'], string> = {
  duration: 'an ISO 8601 duration such as PT10M or P1DT2H',
  date: 'an ISO 8601 date-time with an offset or Z such as 2026-01-01T09:00:00Z',
  cycle: 'a repeating interval such as R3/PT10M, R/PT1H or R5/2026-01-01T00:00:00Z/PT1H, or a 6-field cron expression',
};

/**
 * Checks a timer literal of the given kind.
 *
 * @returns what is wrong with it (to follow the attribute name in a message), or null when it is valid.
 */
export function timerLiteralIssue(kind: TimerSpec['kind'], text: string): string | null {
  const invalid = `"${text}" is not ${EXAMPLES[kind]}`;
  switch (kind) {
    case 'duration': {
      const parsed = duration(text);
      return 'reason' in parsed ? `is not an ISO 8601 duration: ${parsed.reason}` : null;
    }
    case 'date':
      return isDateTime(text) ? null : invalid;
    case 'cycle': {
      if (looksLikeCron(text)) {
        const issue = cronIssue(text);
        return issue ? `"${text}" is not a valid cron expression: ${issue}` : null;
      }
      return repeatingIntervalIssue(text, invalid);
    }
  }
}

function repeatingIntervalIssue(text: string, invalid: string): string | null {
  const parts = text.split('/');
  const repetitions = /^R(\d*)$/.exec(parts[0] ?? '');
  if (!repetitions || parts.length < 2 || parts.length > 3) return invalid;
  if (repetitions[1] !== '' && Number(repetitions[1]) === 0) return `"${text}" repeats zero times (R0)`;
  if (parts.length === 3 && !isDateTime(parts[1] ?? '')) {
    return `"${text}": the start "${parts[1]}" is not an ISO 8601 date-time with an offset or Z`;
  }
  const interval = duration(parts[parts.length - 1] ?? '');
  if ('reason' in interval) return `"${text}": the interval is not an ISO 8601 duration: ${interval.reason}`;
  if (interval.ms <= 0) return `"${text}" repeats every zero-length interval`;
  return null;
}
