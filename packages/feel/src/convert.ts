/**
 * Plain data ⇄ FEEL values: how JSON-like variables meet FEEL, and how a result becomes a variable
 * again, as Zeebe does it (`MessagePackValueMapper` in, `FeelToMessagePackTransformer` out).
 *
 * @module
 */
import { Decimal } from './decimal.js';
import { FeelConversionError } from './errors.js';
import { fromBigInt, fromJsonNumber, isNumber } from './number.js';
import { FeelDate } from './temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from './temporal/date-time.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration } from './temporal/duration.js';
import { FeelLocalTime, FeelTime, formatClockJava } from './temporal/time.js';
import { offsetZone } from './temporal/zone.js';
import { FeelContext, FeelFunction, FeelRange, type FeelValue, lazyConversion } from './values.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isFeelObject(value: object): boolean {
  return (
    value instanceof Decimal ||
    value instanceof FeelContext ||
    value instanceof FeelDate ||
    value instanceof FeelLocalTime ||
    value instanceof FeelTime ||
    value instanceof FeelLocalDateTime ||
    value instanceof FeelDateTime ||
    value instanceof FeelDaysTimeDuration ||
    value instanceof FeelYearsMonthsDuration ||
    value instanceof FeelFunction ||
    value instanceof FeelRange
  );
}

/** One level of conversion; objects in arrays and objects are read lazily (see {@link FeelContext}). */
function convertShallow(value: unknown, path: string): FeelValue {
  if (value === null) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number': {
      const number = fromJsonNumber(value);
      if (number === null) throw new FeelConversionError(`${value} is not a FEEL number`, path);
      return number;
    }
    case 'bigint':
      return fromBigInt(value);
    case 'object':
      break;
    default:
      throw new FeelConversionError(`a ${typeof value} is not FEEL data`, path);
  }
  if (Array.isArray(value)) return value.map((item, i) => convertShallow(item, `${path}[${i}]`));
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new FeelConversionError('an invalid Date is not FEEL data', path);
    return FeelDateTime.ofInstant(BigInt(value.getTime()) * 1_000_000n, offsetZone(0));
  }
  if (isFeelObject(value)) return value as FeelValue;
  if (isPlainObject(value)) return FeelContext.ofObject(value, path);
  throw new FeelConversionError(`a ${value.constructor?.name ?? 'object'} is not FEEL data`, path);
}

lazyConversion.toFeel = convertShallow;

function convertDeep(value: unknown, path: string, seen: Set<object>): FeelValue {
  if (typeof value !== 'object' || value === null || value instanceof Date || isFeelObject(value)) {
    return convertShallow(value, path);
  }
  if (seen.has(value)) throw new FeelConversionError('the data refers to itself', path);
  seen.add(value);
  let result: FeelValue;
  if (Array.isArray(value)) {
    result = value.map((item, i) => convertDeep(item, `${path}[${i}]`, seen));
  } else if (isPlainObject(value)) {
    const entries = new Map<string, FeelValue>();
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) entries.set(key, convertDeep(item, `${path}.${key}`, seen));
    }
    result = FeelContext.of(entries);
  } else {
    result = convertShallow(value, path);
  }
  seen.delete(value);
  return result;
}

/**
 * Plain JS/JSON data as a FEEL value: a number is the decimal of its shortest text (`0.1` is exactly
 * 0.1; a safe integer stays a JS number), a bigint exact, a string a string (one that looks like a
 * date stays a string, as in Zeebe), a `Date` a date-time in UTC, arrays lists, plain objects contexts.
 * FEEL values pass through unchanged.
 *
 * @throws FeelConversionError naming the path of anything else (a function, a class instance, NaN).
 * @example
 * ```ts
 * toFeel({ total: 0.1 }); // a context whose total is the decimal 0.1
 * ```
 */
export function toFeel(value: unknown): FeelValue {
  return convertDeep(value, '$', new Set());
}

/**
 * A FEEL value as plain data for a variable, as Zeebe writes a result: an integral number as a JS
 * number when it is a safe integer, else as an exact bigint; any other number as the nearest double;
 * temporal values as Zeebe's ISO-8601 strings (`2024-05-01`, `10:30`, `2024-05-01T10:30:00+02:00`,
 * `P1DT2H`, `P1Y2M`); contexts as plain objects, lists as arrays.
 *
 * @throws FeelConversionError for a function or a range, which are not data.
 */
export function fromFeel(value: FeelValue): unknown {
  return plain(value, '$');
}

function plain(value: FeelValue, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (isNumber(value)) {
    if (!value.isWhole()) return value.toNumber();
    const integer = value.truncated();
    return integer <= MAX_SAFE && integer >= -MAX_SAFE ? Number(integer) + 0 : integer;
  }
  if (Array.isArray(value)) return value.map((item, i) => plain(item, `${path}[${i}]`));
  if (value instanceof FeelContext) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value.entries()) {
      Object.defineProperty(object, key, {
        value: plain(item, `${path}.${key}`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  }
  if (value instanceof FeelLocalTime) return formatClockJava(value.nanoOfDay);
  if (value instanceof FeelDateTime) return value.toIsoOffsetString();
  if (value instanceof FeelFunction) throw new FeelConversionError('a FEEL function is not data', path);
  if (value instanceof FeelRange) throw new FeelConversionError('a FEEL range is not data', path);
  // Dates, times with an offset, local date-times and both durations: their FEEL form is Zeebe's.
  return (value as { toString(): string }).toString();
}
