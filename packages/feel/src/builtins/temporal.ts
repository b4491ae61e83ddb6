/**
 * Temporal built-ins (feel-scala's `TemporalBuiltinFunctions`): `now()` and `today()` read the
 * injected clock in the configured zone; the calendar functions take a date or a date-time.
 *
 * @module
 */
import type { EvalState } from '../eval/state.js';
import { FeelDate } from '../temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from '../temporal/date-time.js';
import { offsetZone, parseZoneId } from '../temporal/zone.js';
import type { FeelValue } from '../values.js';
import { type BuiltinTable, builtin } from './define.js';

/** The current date-time: the injected clock, in the configured zone (UTC as an offset by default). */
export function currentDateTime(state: EvalState): FeelDateTime {
  const zone = state.zone === null ? offsetZone(0) : parseZoneId(state.zone);
  if (!zone) throw new Error(`thresher: unknown zone ${state.zone}`);
  return FeelDateTime.ofInstant(BigInt(Math.trunc(state.now())) * 1_000_000n, zone);
}

function onDate(body: (date: FeelDate) => FeelValue) {
  return builtin(['date'], ([date]) => {
    if (date instanceof FeelDate) return body(date);
    if (date instanceof FeelDateTime || date instanceof FeelLocalDateTime) return body(date.date);
    return undefined;
  });
}

/** The temporal built-ins. */
export const temporalBuiltins: BuiltinTable = {
  now: [builtin([], (_, state) => currentDateTime(state))],
  today: [builtin([], (_, state) => currentDateTime(state).date)],
  'day of year': [onDate((date) => date.dayOfYear())],
  'day of week': [onDate((date) => date.dayName())],
  'month of year': [onDate((date) => date.monthName())],
  'week of year': [onDate((date) => date.isoWeek())],
  'last day of month': [onDate((date) => date.lastDayOfMonth())],
};
