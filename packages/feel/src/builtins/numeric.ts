/**
 * Numeric built-ins (feel-scala's `NumericBuiltinFunctions`): rounding with Java's modes, `abs` of
 * numbers and durations, `modulo`, `sqrt`/`log`/`exp` through doubles (as feel-scala), and Camunda's
 * `random number` from the injected source.
 *
 * @module
 */
import { DecimalArithmeticError, RoundingMode } from '../decimal.js';
import { JavaException } from '../eval/failure.js';
import * as num from '../number.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration } from '../temporal/duration.js';
import type { FeelNumber, FeelValue, Val } from '../values.js';
import { type BuiltinTable, builtin, fail } from './define.js';

const MODES = Object.values(RoundingMode) as string[];

function round(n: FeelNumber, scale: FeelNumber, mode: RoundingMode): Val {
  try {
    return num.setScale(n, num.intValue(scale), mode);
  } catch (error) {
    if (error instanceof DecimalArithmeticError)
      return fail(`Failed to apply rounding mode '${mode}': ${error.message}`);
    throw error;
  }
}

/** A rounding built-in taking `(n, <scale name>)`. */
function rounding(scaleName: string, mode: RoundingMode) {
  return builtin(['n', scaleName], ([n, scale]) =>
    num.isNumber(n) && num.isNumber(scale) ? round(n, scale, mode) : undefined,
  );
}

/** A double result as feel-scala makes it (`BigDecimal(double)`); NaN or infinity throws there. */
function fromDouble(value: number): FeelNumber {
  const result = num.fromDouble(value);
  if (result === null)
    throw new JavaException(
      'java.lang.NumberFormatException',
      `Character ${String(value)[0]} is neither a decimal digit number, decimal point, nor "e" notation exponential mark.`,
    );
  return result;
}

function abs(paramName: string) {
  return builtin([paramName], ([n]) => {
    if (num.isNumber(n)) return num.isZero(n) || num.compare(n, 0) > 0 ? n : num.negate(n);
    if (n instanceof FeelYearsMonthsDuration) return n.totalMonths < 0 ? n.negated() : n;
    if (n instanceof FeelDaysTimeDuration) return n.abs();
    return undefined;
  });
}

function numberOf(body: (n: FeelNumber) => FeelValue) {
  return builtin(['number'], ([n]) => (num.isNumber(n) ? body(n) : undefined));
}

/** The numeric built-ins. */
export const numericBuiltins: BuiltinTable = {
  decimal: [
    rounding('scale', 'HALF_EVEN'),
    builtin(['n', 'scale', 'mode'], ([n, scale, mode]) => {
      if (!num.isNumber(n) || !num.isNumber(scale) || typeof mode !== 'string') return undefined;
      const upper = mode.toUpperCase();
      if (!MODES.includes(upper))
        return fail(`Illegal argument '${mode}' for rounding mode. Must be one of: ${MODES.join(', ')}`);
      return round(n, scale, upper as RoundingMode);
    }),
  ],
  floor: [
    builtin(['n'], ([n]) => (num.isNumber(n) ? round(n, 0, 'FLOOR') : undefined)),
    // feel-scala names the second parameter `scala` (sic); Camunda documents `scale`.
    rounding('scala', 'FLOOR'),
    rounding('scale', 'FLOOR'),
  ],
  ceiling: [
    builtin(['n'], ([n]) => (num.isNumber(n) ? round(n, 0, 'CEILING') : undefined)),
    rounding('scale', 'CEILING'),
  ],
  abs: [abs('number'), abs('n')],
  modulo: [
    builtin(['dividend', 'divisor'], ([dividend, divisor]) => {
      if (!num.isNumber(dividend) || !num.isNumber(divisor)) return undefined;
      if (num.isZero(divisor)) throw new JavaException('java.lang.ArithmeticException', 'Division by zero');
      return num.remainder(num.add(num.remainder(dividend, divisor), divisor), divisor);
    }),
  ],
  sqrt: [numberOf((n) => (num.compare(n, 0) < 0 ? null : fromDouble(Math.sqrt(num.toDouble(n)))))],
  log: [numberOf((n) => fromDouble(Math.log(num.toDouble(n))))],
  exp: [numberOf((n) => fromDouble(Math.exp(num.toDouble(n))))],
  odd: [numberOf((n) => num.compare(num.remainder(num.compare(n, 0) < 0 ? num.negate(n) : n, 2), 1) === 0)],
  even: [numberOf((n) => num.isZero(num.remainder(n, 2)))],
  'round up': [rounding('scale', 'UP')],
  'round down': [rounding('scale', 'DOWN')],
  'round half up': [rounding('scale', 'HALF_UP')],
  'round half down': [rounding('scala', 'HALF_DOWN'), rounding('scale', 'HALF_DOWN')],
  'random number': [builtin([], (_, state) => fromDouble(state.unsafeRandom()))],
};
