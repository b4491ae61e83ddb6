/**
 * `+ - * /` on FEEL values as feel-scala's `addOp`/`subOp`/`mulOp`/`divOp` define them, temporal
 * arithmetic included. Operand types without a rule are a suppressed failure (the result is null);
 * where Java throws (an overflow, a date out of range) the whole evaluation fails.
 *
 * @module
 */
import { Decimal } from '../decimal.js';
import * as num from '../number.js';
import { FeelDate } from '../temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from '../temporal/date-time.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration, yearsMonths } from '../temporal/duration.js';
import { FeelLocalTime, FeelTime, NANOS_PER_DAY } from '../temporal/time.js';
import type { FeelNumber, FeelValue, Val } from '../values.js';
import { JavaException } from './failure.js';
import { show } from './show.js';
import { type EvalState, FeelWarningType } from './state.js';

const DAY_NANOS = BigInt(NANOS_PER_DAY);
const isNum = num.isNumber;

/** Nanoseconds of a duration modulo one day, as LocalTime.plus applies it. */
function dayNanos(duration: FeelDaysTimeDuration): number {
  return Number(duration.nanos % DAY_NANOS);
}

function atStartOfDay(date: FeelDate): FeelLocalDateTime {
  return new FeelLocalDateTime(date, 0);
}

/** x + y, or null (with a warning) for types feel-scala cannot add. */
export function add(x: FeelValue, y: FeelValue, state: EvalState): Val {
  if (isNum(x) && isNum(y)) return num.add(x, y);
  if (typeof x === 'string' && typeof y === 'string') return x + y;
  const result = java(() => addTemporal(x, y));
  return result !== undefined
    ? result
    : state.error(FeelWarningType.InvalidType, `Can't add '${show(y)}' to '${show(x)}'`);
}

function addTemporal(x: FeelValue, y: FeelValue): FeelValue | undefined {
  if (y instanceof FeelDaysTimeDuration) {
    if (x instanceof FeelLocalTime || x instanceof FeelTime) return x.plusNanos(dayNanos(y));
    if (x instanceof FeelLocalDateTime || x instanceof FeelDateTime) return x.plusNanos(y.nanos);
    if (x instanceof FeelDaysTimeDuration) return x.plus(y);
    if (x instanceof FeelDate) return atStartOfDay(x).plusNanos(y.nanos).date;
  }
  if (y instanceof FeelYearsMonthsDuration) {
    if (x instanceof FeelLocalDateTime || x instanceof FeelDateTime || x instanceof FeelDate) {
      return x.plusMonths(y.totalMonths);
    }
    if (x instanceof FeelYearsMonthsDuration) return x.plus(y);
  }
  if (x instanceof FeelYearsMonthsDuration || x instanceof FeelDaysTimeDuration) {
    if (y instanceof FeelLocalDateTime || y instanceof FeelDateTime || y instanceof FeelDate) {
      return addTemporal(y, x);
    }
    if (x instanceof FeelDaysTimeDuration && (y instanceof FeelLocalTime || y instanceof FeelTime)) {
      return addTemporal(y, x);
    }
  }
  return undefined;
}

/** x - y, or null (with a warning) for types feel-scala cannot subtract. */
export function subtract(x: FeelValue, y: FeelValue, state: EvalState): Val {
  if (isNum(x) && isNum(y)) return num.subtract(x, y);
  const result = java(() => subtractTemporal(x, y));
  return result !== undefined
    ? result
    : state.error(FeelWarningType.InvalidType, `Can't subtract '${show(y)}' from '${show(x)}'`);
}

function subtractTemporal(x: FeelValue, y: FeelValue): FeelValue | undefined {
  if (x instanceof FeelLocalTime && y instanceof FeelLocalTime) {
    return new FeelDaysTimeDuration(BigInt(x.nanoOfDay - y.nanoOfDay));
  }
  // feel-scala's ZonedTime.between: the distance, never negative.
  if (x instanceof FeelTime && y instanceof FeelTime) {
    return new FeelDaysTimeDuration(BigInt(Math.abs(x.utcNanos() - y.utcNanos())));
  }
  if (x instanceof FeelLocalDateTime && y instanceof FeelLocalDateTime) {
    return new FeelDaysTimeDuration(x.localNanos() - y.localNanos());
  }
  if (x instanceof FeelDateTime && y instanceof FeelDateTime) {
    return new FeelDaysTimeDuration(x.epochNanos() - y.epochNanos());
  }
  if (x instanceof FeelDate && y instanceof FeelDate) {
    return new FeelDaysTimeDuration(BigInt(x.toEpochDay() - y.toEpochDay()) * DAY_NANOS);
  }
  if (x instanceof FeelYearsMonthsDuration && y instanceof FeelYearsMonthsDuration) return x.minus(y);
  if (x instanceof FeelDaysTimeDuration && y instanceof FeelDaysTimeDuration) return x.minus(y);
  if (y instanceof FeelDaysTimeDuration || y instanceof FeelYearsMonthsDuration) {
    if (
      x instanceof FeelLocalTime ||
      x instanceof FeelTime ||
      x instanceof FeelLocalDateTime ||
      x instanceof FeelDateTime ||
      x instanceof FeelDate
    ) {
      if (y instanceof FeelYearsMonthsDuration && (x instanceof FeelLocalTime || x instanceof FeelTime))
        return undefined;
      return addTemporal(x, y.negated());
    }
  }
  return undefined;
}

/** x * y, or null (with a warning) for types feel-scala cannot multiply. */
export function multiply(x: FeelValue, y: FeelValue, state: EvalState): Val {
  if (isNum(x) && isNum(y)) return num.multiply(x, y);
  const result = java(() => {
    if (isNum(x) && y instanceof FeelYearsMonthsDuration) return timesMonths(y, x);
    if (isNum(x) && y instanceof FeelDaysTimeDuration) return timesNanos(y, x);
    if (x instanceof FeelYearsMonthsDuration && isNum(y)) return timesMonths(x, y);
    if (x instanceof FeelDaysTimeDuration && isNum(y)) return timesNanos(x, y);
    return undefined;
  });
  return result !== undefined
    ? result
    : state.error(FeelWarningType.InvalidType, `Can't multiply '${show(x)}' by '${show(y)}'`);
}

/** Java's `Period.multipliedBy(n.intValue)`: the factor truncated to an int; an int overflow throws. */
function timesMonths(duration: FeelYearsMonthsDuration, factor: FeelNumber): FeelYearsMonthsDuration {
  const n = num.intValue(factor);
  const years = duration.years * n;
  const months = duration.months * n;
  if (Math.abs(years) > 2 ** 31 - 1 || Math.abs(months) > 2 ** 31 - 1)
    throw new JavaException('ArithmeticException', 'integer overflow');
  return yearsMonths(years * 12 + months);
}

/** Java's `Duration.multipliedBy(n.intValue)`. */
function timesNanos(duration: FeelDaysTimeDuration, factor: FeelNumber): FeelDaysTimeDuration {
  return duration.times(num.intValue(factor));
}

/** x / y, or null (with a warning) for types feel-scala cannot divide (and division by zero). */
export function divide(x: FeelValue, y: FeelValue, state: EvalState): Val {
  if (isNum(x) && isNum(y) && !num.isZero(y)) return num.divide(x, y);
  const result = java(() => divideTemporal(x, y));
  return result !== undefined
    ? result
    : state.error(FeelWarningType.InvalidType, `Can't divide '${show(x)}' by '${show(y)}'`);
}

function divideTemporal(x: FeelValue, y: FeelValue): FeelValue | undefined {
  if (x instanceof FeelYearsMonthsDuration) {
    if (isNum(y) && !num.isZero(y)) {
      // Scala: Long / BigDecimal (34 digits), then intValue.
      return yearsMonths(Decimal.of(BigInt(x.totalMonths), 0).dividedBy(num.toDecimal(y)).intValue());
    }
    if (y instanceof FeelYearsMonthsDuration && !y.isZero()) {
      return num.fromInteger(Math.trunc(x.totalMonths / y.totalMonths));
    }
  }
  if (x instanceof FeelDaysTimeDuration) {
    if (y instanceof FeelDaysTimeDuration && !y.isZero()) {
      const divisor = y.toMillis();
      if (divisor === 0n) throw new JavaException('ArithmeticException', '/ by zero');
      return num.fromBigInt(x.toMillis() / divisor);
    }
    if (isNum(y) && !num.isZero(y)) {
      const millis = Decimal.of(x.toMillis(), 0).dividedBy(num.toDecimal(y)).intValue();
      return FeelDaysTimeDuration.ofMillis(millis);
    }
  }
  return undefined;
}

/** Runs a temporal operation; Java's exceptions there (a date out of range) fail the evaluation. */
function java<T>(operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof JavaException) throw error;
    if (error instanceof Error && /Invalid|out of range|RangeError/.test(`${error.name} ${error.message}`)) {
      throw new JavaException('DateTimeException', error.message);
    }
    throw error;
  }
}
