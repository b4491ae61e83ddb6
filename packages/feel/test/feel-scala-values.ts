/**
 * The feel-scala data's tagged values (see data/feel-scala/README.md) as FEEL values, and the comparison
 * feel-scala's tests make (Scala `==` on its results: numbers by value, contexts by entries, java.time's
 * `equals` for temporal values).
 */
import {
  Decimal,
  FeelContext,
  FeelDate,
  FeelDateTime,
  FeelDaysTimeDuration,
  FeelLocalDateTime,
  FeelLocalTime,
  FeelTime,
  type FeelValue,
  FeelYearsMonthsDuration,
} from '../src/index.js';
import { compare as compareNumbers, isNumber, parseNumber } from '../src/number.js';
import { parseJavaDuration } from '../src/temporal/duration.js';
import { parseDate, parseDateTime, parseLocalDateTime, parseLocalTime, parseZonedTime } from '../src/temporal/parse.js';
import type { TaggedValue } from './data/feel-scala/load.js';

/** A FEEL value from the data's encoding. */
export function decode(value: TaggedValue): FeelValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(decode);
  if ('$number' in value) return parseNumber(value.$number)!;
  if ('$date' in value) return must(parseDate(value.$date), value.$date);
  if ('$time' in value) {
    const text = value.$time;
    return must(/[Z+@-]/.test(text.slice(5)) ? parseZonedTime(text, 0) : parseLocalTime(text), text);
  }
  if ('$dateTime' in value) {
    const text = value.$dateTime;
    return must(/[Z+@]|-\d\d:\d\d$/.test(text.slice(10)) ? parseDateTime(text) : parseLocalDateTime(text), text);
  }
  if ('$duration' in value) {
    const text = value.$duration;
    return must(parseJavaDuration(text), text);
  }
  if ('$yearMonthDuration' in value) {
    const text = value.$yearMonthDuration;
    const match = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?$/.exec(text);
    if (!match) throw new Error(`not a years-months duration: ${text}`);
    const months = Number(match[2] ?? 0) * 12 + Number(match[3] ?? 0);
    return new FeelYearsMonthsDuration(match[1] ? -months : months);
  }
  return FeelContext.of(new Map(value.$context.map(([key, item]) => [key, decode(item)])));
}

function must<T>(value: T | null, text: string): T {
  if (value === null) throw new Error(`the data's value ${text} does not read`);
  return value;
}

/**
 * Whether `actual` is what feel-scala's test expects. For the `api` harness a time with a zone id
 * came out of feel-scala as a `java.time.OffsetTime`: its zone is not compared.
 */
export function same(actual: FeelValue, expected: FeelValue, harness: 'api' | 'interpreter'): boolean {
  if (expected === null || typeof expected === 'boolean' || typeof expected === 'string') return actual === expected;
  if (isNumber(expected)) return isNumber(actual) && compareNumbers(actual, expected) === 0;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      actual.every((item, i) => same(item, expected[i]!, harness))
    );
  }
  if (expected instanceof FeelContext) {
    if (!(actual instanceof FeelContext)) return false;
    const keys = expected.keys();
    return (
      actual.size === keys.length &&
      keys.every((key) => actual.has(key) && same(actual.get(key)!, expected.get(key)!, harness))
    );
  }
  if (expected instanceof FeelTime && actual instanceof FeelTime && harness === 'api') {
    return actual.nanoOfDay === expected.nanoOfDay && actual.offsetSeconds === expected.offsetSeconds;
  }
  for (const type of [
    FeelDate,
    FeelLocalTime,
    FeelTime,
    FeelLocalDateTime,
    FeelDateTime,
    FeelDaysTimeDuration,
    FeelYearsMonthsDuration,
  ]) {
    if (expected instanceof type)
      return actual instanceof type && (actual as { equals(o: unknown): boolean }).equals(expected);
  }
  if (expected instanceof Decimal) return false;
  throw new Error(`cannot compare with ${String(expected)}`);
}
