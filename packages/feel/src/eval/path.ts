/**
 * `a.b`: a context's entry, a list's projection (`items.price`), or a temporal value's property
 * (`.year`, `.weekday`, `.time offset`, `.days`), as feel-scala's `path` and `Val.properties` define them.
 *
 * @module
 */
import { fromBigInt } from '../number.js';
import { FeelDate } from '../temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from '../temporal/date-time.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration } from '../temporal/duration.js';
import { FeelLocalTime, FeelTime } from '../temporal/time.js';
import { FeelContext, type FeelValue } from '../values.js';
import { show } from './show.js';
import { type EvalState, FeelWarningType } from './state.js';

type Properties = Record<string, () => FeelValue>;

function dateProperties(date: FeelDate): Properties {
  return {
    year: () => date.year,
    month: () => date.month,
    day: () => date.day,
    weekday: () => date.dayOfWeek(),
  };
}

function clockProperties(time: { hour: number; minute: number; second: number }): Properties {
  return { hour: () => time.hour, minute: () => time.minute, second: () => time.second };
}

/** The properties feel-scala gives a value (none for numbers, strings, lists…). */
export function propertiesOf(value: FeelValue): Properties | null {
  if (value instanceof FeelDate) return dateProperties(value);
  // Listed in the order feel-scala's messages name them (a Scala hash map's order).
  if (value instanceof FeelLocalTime || value instanceof FeelTime) {
    const clock = clockProperties(value);
    return {
      timezone: () => (value instanceof FeelTime ? value.zone : null),
      second: clock.second!,
      'time offset': () => (value instanceof FeelTime ? FeelDaysTimeDuration.ofSeconds(value.offsetSeconds) : null),
      minute: clock.minute!,
      hour: clock.hour!,
    };
  }
  if (value instanceof FeelLocalDateTime || value instanceof FeelDateTime) {
    const date = dateProperties(value.date);
    const clock = clockProperties(new FeelLocalTime(value.nanoOfDay));
    const zoned = value instanceof FeelDateTime ? value : null;
    return {
      timezone: () => (zoned?.hasTimeZone() ? zoned.zone.id : null),
      year: date.year!,
      second: clock.second!,
      month: date.month!,
      day: date.day!,
      'time offset': () => (zoned ? FeelDaysTimeDuration.ofSeconds(zoned.offsetSeconds) : null),
      weekday: date.weekday!,
      minute: clock.minute!,
      hour: clock.hour!,
    };
  }
  if (value instanceof FeelYearsMonthsDuration) return { years: () => value.years, months: () => value.months };
  if (value instanceof FeelDaysTimeDuration) {
    return {
      days: () => fromBigInt(value.toDays()),
      hours: () => fromBigInt(value.toHours() % 24n),
      minutes: () => fromBigInt(value.toMinutes() % 60n),
      seconds: () => fromBigInt(value.seconds % 60n),
    };
  }
  return null;
}

/** feel-scala's `path(value, key)`; a missing entry or property is null with a warning. */
export function path(value: FeelValue, key: string, state: EvalState): FeelValue {
  if (value instanceof FeelContext) {
    const entry = value.get(key);
    if (entry !== undefined) return entry;
    const keys = value.keys();
    const detail =
      keys.length === 0 ? 'The context is empty' : `Available keys: ${keys.map((k) => `'${k}'`).join(', ')}`;
    state.warn(FeelWarningType.NoContextEntryFound, `No context entry found with key '${key}'. ${detail}`);
    return null;
  }
  if (Array.isArray(value)) return value.map((item) => path(item, key, state));
  if (value === null) {
    state.warn(FeelWarningType.NoContextEntryFound, `No context entry found with key '${key}'. The context is null`);
    return null;
  }
  const properties = propertiesOf(value);
  const property = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
  if (property) return property();
  const names = Object.keys(properties ?? {})
    .map((name) => `'${name}'`)
    .join(', ');
  state.warn(
    FeelWarningType.NoPropertyFound,
    `No property found with name '${key}' of value '${show(value)}'. Available properties: ${names}`,
  );
  return null;
}
