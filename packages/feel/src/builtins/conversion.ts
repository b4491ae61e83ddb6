/**
 * Conversion built-ins (feel-scala's `ConversionBuiltinFunctions`): `date`, `time`, `date and time`,
 * `duration`, `years and months duration`, `number`, `string`.
 *
 * @module
 */
import { JavaException } from '../eval/failure.js';
import { toFeelString } from '../eval/show.js';
import * as num from '../number.js';
import { isNumber, parseNumber, toDecimal } from '../number.js';
import { FeelDate, InvalidDateError } from '../temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from '../temporal/date-time.js';
import { FeelDaysTimeDuration, yearsMonths } from '../temporal/duration.js';
import {
  isDateText,
  isLocalDateTimeText,
  isOffsetDateTimeText,
  isOffsetTimeText,
  parseDate,
  parseDateTime,
  parseDuration,
  parseLocalDateTime,
  parseLocalTime,
  parseZonedTime,
} from '../temporal/parse.js';
import { FeelLocalTime, FeelTime, NANOS_PER_SECOND } from '../temporal/time.js';
import { parseZoneId, type Zone } from '../temporal/zone.js';
import type { FeelNumber, FeelValue } from '../values.js';
import { type BuiltinTable, builtin, fail } from './define.js';

function dateOf(value: FeelValue): FeelDate | undefined {
  if (value instanceof FeelDate) return value;
  if (value instanceof FeelLocalDateTime || value instanceof FeelDateTime) return value.date;
  return undefined;
}

/** Java's `ZoneId.of`, which throws (failing the evaluation) for an unknown zone. */
function zoneOf(id: string): Zone {
  const zone = parseZoneId(id);
  if (!zone) throw new JavaException('java.time.zone.ZoneRulesException', `Unknown time-zone ID: ${id}`);
  return zone;
}

/** feel-scala's `ZonedTime.withDate`: the time's zone when it has one, else its offset. */
function timeWithDate(time: FeelTime, date: FeelDate): FeelDateTime {
  const local = new FeelLocalDateTime(date, time.nanoOfDay);
  if (time.zone !== null) return FeelDateTime.ofLocal(local, zoneOf(time.zone));
  return FeelDateTime.atOffset(local, time.offsetSeconds);
}

/** The nanoseconds of a second value's fraction (feel-scala: `second.remainder(1).movePointRight(9).intValue`). */
function fractionNanos(second: FeelNumber): number {
  const decimal = toDecimal(second);
  const fraction = num.subtract(decimal, num.fromBigInt(decimal.truncated()));
  return num.intValue(num.multiply(fraction, NANOS_PER_SECOND));
}

/** Java's `LocalTime.of(h, m, s, nanos)`, or null where it throws. */
function localTime(hour: number, minute: number, second: number, nano: number): FeelLocalTime | null {
  if (
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    nano < 0 ||
    nano > 999_999_999
  ) {
    return null;
  }
  return new FeelLocalTime(((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + nano);
}

/** Java's `Period.between(from, to)` without its days: whole months, towards zero. */
export function monthsBetween(from: FeelDate, to: FeelDate): number {
  let months = to.year * 12 + to.month - (from.year * 12 + from.month);
  const days = to.day - from.day;
  if (months > 0 && days < 0) months--;
  else if (months < 0 && days > 0) months++;
  return months;
}

const GROUPING = new Set([' ', ',', '.']);
const DECIMAL = new Set([',', '.']);

function parseNumberOrFail(text: string) {
  return parseNumber(text) ?? fail(`Can't parse '${text}' as a number`);
}

function parseTimeText(text: string, nowMillis: number) {
  if (isOffsetTimeText(text))
    return parseZonedTime(text, Math.floor(nowMillis / 1000)) ?? fail(`Failed to parse time from '${text}'`);
  return parseLocalTime(text) ?? fail(`Failed to parse local-time from '${text}'`);
}

function parseDateTimeText(text: string) {
  if (isDateText(text)) {
    const date = parseDate(text);
    return date ? new FeelLocalDateTime(date, 0) : fail(`Failed to parse date(-time) from '${text}'`);
  }
  if (isOffsetDateTimeText(text)) return parseDateTime(text) ?? fail(`Failed to parse date-time from '${text}'`);
  if (isLocalDateTimeText(text))
    return parseLocalDateTime(text) ?? fail(`Failed to parse local-date-time from '${text}'`);
  return fail(`Failed to parse date-time from '${text}'`);
}

const dateAndTimeOfParts = (params: string[]) =>
  builtin(params, ([date, time]) => {
    if (date instanceof FeelDate || date instanceof FeelLocalDateTime || date instanceof FeelDateTime) {
      const day = dateOf(date)!;
      if (time instanceof FeelLocalTime) return new FeelLocalDateTime(day, time.nanoOfDay);
      if (time instanceof FeelTime) return timeWithDate(time, day);
    }
    if (typeof time === 'string') {
      if (date instanceof FeelLocalDateTime) return FeelDateTime.ofLocal(date, zoneOf(time));
      if (date instanceof FeelDateTime) return date.withZoneSameInstant(zoneOf(time));
    }
    return undefined;
  });

/** The conversion built-ins. */
export const conversionBuiltins: BuiltinTable = {
  date: [
    builtin(['from'], ([from]) => {
      if (typeof from === 'string') {
        return (isDateText(from) && parseDate(from)) || fail(`Failed to parse date from '${from}'`);
      }
      return dateOf(from!);
    }),
    builtin(['year', 'month', 'day'], ([year, month, day]) => {
      if (!isNumber(year) || !isNumber(month) || !isNumber(day)) return undefined;
      try {
        return FeelDate.of(num.intValue(year), num.intValue(month), num.intValue(day));
      } catch (error) {
        if (!(error instanceof InvalidDateError)) throw error;
        return fail(
          `Failed to parse date from: year=${num.numberToString(year)}, month=${num.numberToString(month)}, day=${num.numberToString(day)}`,
        );
      }
    }),
  ],
  'date and time': [
    builtin(['from'], ([from]) => (typeof from === 'string' ? parseDateTimeText(from) : undefined)),
    dateAndTimeOfParts(['date', 'time']),
    // Camunda documents the zone form with a parameter `timezone`; feel-scala names it `time`.
    dateAndTimeOfParts(['date', 'timezone']),
  ],
  time: [
    builtin(['from'], ([from], state) => {
      if (typeof from === 'string') return parseTimeText(from, state.now());
      if (from instanceof FeelLocalDateTime) return new FeelLocalTime(from.nanoOfDay);
      if (from instanceof FeelDateTime) {
        return new FeelTime(from.nanoOfDay, from.offsetSeconds, from.hasTimeZone() ? from.zone.id : null);
      }
      if (from instanceof FeelDate) return new FeelTime(0, 0, null);
      return undefined;
    }),
    builtin(['hour', 'minute', 'second'], ([hour, minute, second]) => {
      if (!isNumber(hour) || !isNumber(minute) || !isNumber(second)) return undefined;
      const time = localTime(num.intValue(hour), num.intValue(minute), num.intValue(second), fractionNanos(second));
      return (
        time ??
        fail(
          `Failed to parse local-time from: hour=${num.numberToString(hour)}, minute=${num.numberToString(minute)}, second=${num.numberToString(second)}`,
        )
      );
    }),
    builtin(['hour', 'minute', 'second', 'offset'], ([hour, minute, second, offset]) => {
      if (!isNumber(hour) || !isNumber(minute) || !isNumber(second)) return undefined;
      if (offset === null) {
        const time = localTime(num.intValue(hour), num.intValue(minute), num.intValue(second), 0);
        return time ?? fail('Failed to parse local-time');
      }
      if (!(offset instanceof FeelDaysTimeDuration)) return undefined;
      const time = localTime(num.intValue(hour), num.intValue(minute), num.intValue(second), fractionNanos(second));
      const offsetSeconds = Number(BigInt.asIntN(32, offset.seconds));
      if (!time || Math.abs(offsetSeconds) > 18 * 3600) return fail('Failed to parse time');
      return new FeelTime(time.nanoOfDay, offsetSeconds, null);
    }),
  ],
  number: [
    builtin(['from'], ([from]) => (typeof from === 'string' ? parseNumberOrFail(from) : undefined)),
    builtin(['from', 'grouping separator'], ([from, grouping]) => {
      if (typeof from !== 'string' || typeof grouping !== 'string') return undefined;
      if (!GROUPING.has(grouping)) return fail(`illegal argument for grouping. Must be one of ' ', ',' or '.'`);
      return parseNumberOrFail(from.replaceAll(grouping, ''));
    }),
    builtin(['from', 'grouping separator', 'decimal separator'], ([from, grouping, decimal]) => {
      if (typeof from !== 'string') return undefined;
      if (typeof grouping === 'string' && typeof decimal === 'string') {
        if (GROUPING.has(grouping) && DECIMAL.has(decimal) && grouping !== decimal) {
          return parseNumberOrFail(from.replaceAll(grouping, '').replaceAll(decimal, '.'));
        }
        return fail(`illegal arguments for grouping or decimal. Must be one of ' ' (grouping only), ',' or '.'`);
      }
      if (grouping === null && typeof decimal === 'string' && DECIMAL.has(decimal)) {
        return parseNumberOrFail(from.replaceAll(decimal, '.'));
      }
      if (typeof grouping === 'string' && decimal === null && GROUPING.has(grouping)) {
        return parseNumberOrFail(from.replaceAll(grouping, ''));
      }
      return undefined;
    }),
  ],
  string: [
    builtin(['from'], ([from]) => (from === null ? null : typeof from === 'string' ? from : toFeelString(from!))),
  ],
  duration: [
    builtin(['from'], ([from]) => {
      if (typeof from !== 'string') return undefined;
      return parseDuration(from) ?? fail(`Failed to parse duration from '${from}'`);
    }),
  ],
  'years and months duration': [
    builtin(['from', 'to'], ([from, to]) => {
      const a = dateOf(from!);
      const b = dateOf(to!);
      if (!a || !b) return undefined;
      return yearsMonths(monthsBetween(a, b));
    }),
  ],
};
