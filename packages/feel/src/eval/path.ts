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
  if (value instanceof FeelLocalTime) {
    return { ...clockProperties(value), 'time offset': () => null, timezone: () => null };
  }
  if (value instanceof FeelTime) {
    return {
      ...clockProperties(value),
      'time offset': () => FeelDaysTimeDuration.ofSeconds(value.offsetSeconds),
      timezone: () => value.zone,
    };
  }
  if (value instanceof FeelLocalDateTime) {
    return {
      ...dateProperties(value.date),
      ...clockProperties(new FeelLocalTime(value.nanoOfDay)),
      'time offset': () => null,
      timezone: () => null,
    };
  }
  if (value instanceof FeelDateTime) {
    return {
      ...dateProperties(value.date),
      ...clockProperties(new FeelLocalTime(value.nanoOfDay)),
      'time offset': () => FeelDaysTimeDuration.ofSeconds(value.offsetSeconds),
      timezone: () => (value.hasTimeZone() ? value.zone.id : null),
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
