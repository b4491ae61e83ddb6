/**
 * Reading temporal text as feel-scala reads it: its patterns decide the kind (`isValidDate`,
 * `isOffsetTime`, …), then Java's formatters (strict dates, optional seconds, up to nine fraction
 * digits, `Z`/`+01:00`/`@Europe/Berlin`) read the value.
 *
 * @module
 */
import { FeelDate, InvalidDateError } from './date.js';
import { FeelDateTime, FeelLocalDateTime } from './date-time.js';
import {
  type FeelDaysTimeDuration,
  type FeelYearsMonthsDuration,
  parseJavaDuration,
  parseJavaPeriod,
} from './duration.js';
import { FeelLocalTime, FeelTime, NANOS_PER_SECOND } from './time.js';
import { parseZoneId, standardOffsetAt } from './zone.js';

/** feel-scala's `isValidDate`. */
export const isDateText = (text: string) => /^-?([1-9]\d{0,4})?\d{4}-[01][0-9]-[0-3]\d$/.test(text);
/** feel-scala's `isOffsetTime`. */
export const isOffsetTimeText = (text: string) => /^T?\d{2}:\d{2}:\d{2}(\.\d{1,9})?([+-]\d{2}:\d{2}|Z|@.*)$/.test(text);
/** feel-scala's `isOffsetDateTime`. */
export const isOffsetDateTimeText = (text: string) =>
  /^-?([1-9]\d{0,4})?\d{4}-[01][0-9]-[0-3]\dT[0-2][0-9]:[0-5][0-9](:[0-5][0-9])?(\.\d{1,9})?([+-][01][0-9]:[0-5][0-9]|Z|@.*)$/.test(
    text,
  );
/** feel-scala's `isLocalDateTime`. */
export const isLocalDateTimeText = (text: string) =>
  /^-?([1-9]\d{0,4})?\d{4}-[01][0-9]-[0-3]\dT[0-2][0-9]:[0-5][0-9](:[0-5][0-9])?(\.\d{1,9})?$/.test(text);
/** feel-scala's `isYearMonthDuration`. */
export const isYearsMonthsText = (text: string) => /^-?P-?(\d+Y)?-?(\d+M)?$/.test(text);
/** feel-scala's `isDayTimeDuration` (its `.` before the fraction matches any character, as in feel-scala). */
export const isDaysTimeText = (text: string) => /^-?P(-?(\d+D)?(T-?(\d+H)?-?(\d+M)?-?(\d+(.\d*)?S)?)?)$/.test(text);

const DATE = /^(-?\d{4,9})-(\d{2})-(\d{2})/;
const CLOCK = /^(\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d{0,9}))?/;

/** Java's `LocalDate.parse` with feel-scala's formatter (strict: `2021-02-30` is refused). */
export function parseDate(text: string): FeelDate | null {
  const match = DATE.exec(text);
  if (!match || match[0].length !== text.length) return null;
  return dateOf(match);
}

function dateOf(match: RegExpExecArray): FeelDate | null {
  try {
    return FeelDate.of(Number(match[1]), Number(match[2]), Number(match[3]));
  } catch (error) {
    if (error instanceof InvalidDateError) return null;
    throw error;
  }
}

/** Reads `HH:mm[:ss][.fffffffff]` at the start of `text`: the nanosecond of the day and the length read. */
function readClock(text: string): { nano: number; length: number; endOfDay: boolean } | null {
  const match = CLOCK.exec(text);
  if (!match) return null;
  let hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3] ?? 0);
  const fraction = Number((match[4] ?? '').padEnd(9, '0'));
  if (minute > 59 || second > 59) return null;
  const endOfDay = hour === 24 && minute === 0 && second === 0 && fraction === 0;
  if (endOfDay) hour = 0;
  if (hour > 23) return null;
  const nano = ((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + fraction;
  return { nano, length: match[0].length, endOfDay };
}

/** Java's `LocalTime.parse` with feel-scala's formatter: an optional `T`, optional seconds. */
export function parseLocalTime(text: string): FeelLocalTime | null {
  const body = text.startsWith('T') ? text.slice(1) : text;
  const clock = readClock(body);
  if (!clock || clock.length !== body.length) return null;
  return new FeelLocalTime(clock.nano);
}

/** An offset and/or a zone after a clock: `Z`, `+01:00`, `+01:00:30`, `@Europe/Berlin`, or both. */
function readZoneSuffix(text: string): { offset: number | null; zoneId: string | null } | null {
  let rest = text;
  let offset: number | null = null;
  if (rest.startsWith('Z')) {
    offset = 0;
    rest = rest.slice(1);
  } else {
    const match = /^([+-])(\d{2}):(\d{2})(?::(\d{2}))?/.exec(rest);
    if (match) {
      const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0);
      if (Number(match[3]) > 59 || Number(match[4] ?? 0) > 59 || seconds > 18 * 3600) return null;
      offset = match[1] === '-' ? -seconds : seconds;
      rest = rest.slice(match[0].length);
    }
  }
  let zoneId: string | null = null;
  if (rest.startsWith('@')) {
    zoneId = rest.slice(1);
    rest = '';
  }
  if (rest !== '' || (offset === null && zoneId === null)) return null;
  return { offset, zoneId };
}

/**
 * feel-scala's `ZonedTime.parse`: a time with an offset, or with a zone id whose offset is the zone's
 * standard offset at `nowEpochSecond`.
 */
export function parseZonedTime(text: string, nowEpochSecond: number): FeelTime | null {
  const body = text.startsWith('T') ? text.slice(1) : text;
  const clock = readClock(body);
  if (!clock) return null;
  const suffix = readZoneSuffix(body.slice(clock.length));
  if (!suffix) return null;
  if (suffix.zoneId === null) return new FeelTime(clock.nano, suffix.offset!, null);
  const zone = parseZoneId(suffix.zoneId);
  if (!zone) return null;
  if (zone.isOffset) return new FeelTime(clock.nano, suffix.offset ?? zone.fixed!, null);
  return new FeelTime(clock.nano, suffix.offset ?? standardOffsetAt(zone, nowEpochSecond), zone.id);
}

/** Java's `LocalDateTime.parse` with feel-scala's formatter (strict). */
export function parseLocalDateTime(text: string): FeelLocalDateTime | null {
  const date = DATE.exec(text);
  if (!date || text[date[0].length] !== 'T') return null;
  const rest = text.slice(date[0].length + 1);
  const clock = readClock(rest);
  if (!clock || clock.length !== rest.length) return null;
  const day = dateOf(date);
  return day && new FeelLocalDateTime(clock.endOfDay ? day.plusDays(1) : day, clock.nano);
}

/** Java's `ZonedDateTime.parse` with feel-scala's formatter: an offset, a zone id, or both. */
export function parseDateTime(text: string): FeelDateTime | null {
  const date = DATE.exec(text);
  if (!date || text[date[0].length] !== 'T') return null;
  const rest = text.slice(date[0].length + 1);
  const clock = readClock(rest);
  if (!clock) return null;
  const suffix = readZoneSuffix(rest.slice(clock.length));
  const day = dateOf(date);
  if (!suffix || !day) return null;
  // `T24:00:00` is the next day's midnight, as Java's SMART resolver (feel-scala's) reads it.
  const local = new FeelLocalDateTime(clock.endOfDay ? day.plusDays(1) : day, clock.nano);
  if (suffix.zoneId === null) return FeelDateTime.atOffset(local, suffix.offset!);
  const zone = parseZoneId(suffix.zoneId);
  if (!zone) return null;
  if (suffix.offset === null) return FeelDateTime.ofLocal(local, zone);
  // With both, Java takes the instant the offset names and shows it in the zone.
  const atOffset = FeelDateTime.atOffset(local, suffix.offset);
  return zone.isOffset ? atOffset : FeelDateTime.ofInstant(atOffset.epochNanos(), zone);
}

/** A temporal value or a failure to read one. */
export type Temporal = FeelDate | FeelLocalTime | FeelTime | FeelLocalDateTime | FeelDateTime;

/** feel-scala's `date and time("…")`: a date is midnight, then an offset/zone date-time, then local. */
export function parseDateAndTime(text: string): FeelDateTime | FeelLocalDateTime | null {
  if (isDateText(text)) {
    const date = parseDate(text);
    return date && new FeelLocalDateTime(date, 0);
  }
  if (isOffsetDateTimeText(text)) return parseDateTime(text);
  if (isLocalDateTimeText(text)) return parseLocalDateTime(text);
  return null;
}

/** feel-scala's `time("…")`: with an offset or zone when the text has one, else local. */
export function parseTime(text: string, nowEpochSecond: number): FeelTime | FeelLocalTime | null {
  return isOffsetTimeText(text) ? parseZonedTime(text, nowEpochSecond) : parseLocalTime(text);
}

/** feel-scala's `duration("…")` function: either kind, by its patterns. */
export function parseDuration(text: string): FeelDaysTimeDuration | FeelYearsMonthsDuration | null {
  if (isYearsMonthsText(text)) return parseJavaPeriod(text);
  if (isDaysTimeText(text)) return parseJavaDuration(text);
  return null;
}

/** feel-scala's `@"…"` literal: the first kind whose pattern matches, or null when the value is invalid. */
export function parseAtLiteral(
  text: string,
  nowEpochSecond: number,
): Temporal | FeelDaysTimeDuration | FeelYearsMonthsDuration | null {
  if (isDateText(text)) return parseDate(text);
  if (isOffsetTimeText(text)) return parseZonedTime(text, nowEpochSecond);
  if (isOffsetDateTimeText(text)) return parseDateTime(text);
  if (isLocalDateTimeText(text)) return parseLocalDateTime(text);
  if (isYearsMonthsText(text)) return parseJavaPeriod(text);
  if (isDaysTimeText(text)) return parseJavaDuration(text);
  return parseLocalTime(text);
}

/** feel-scala's `duration("…")` literal: read by Java's parsers directly (no pattern check for days-time). */
export function parseDurationLiteral(text: string): FeelDaysTimeDuration | FeelYearsMonthsDuration | null {
  return isYearsMonthsText(text) ? parseJavaPeriod(text) : parseJavaDuration(text);
}
