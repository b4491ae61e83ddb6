/**
 * FEEL number arithmetic, as feel-scala computes it (Scala `BigDecimal`, 34 digits, half-even), with a
 * fast path: a safe integer is a plain JS number, and an operation on two of them whose exact result is
 * still a safe integer allocates nothing.
 *
 * @module
 */
import { Decimal, decimalFromDouble, decimalPow, parseDecimal, type RoundingMode } from './decimal.js';
import type { FeelNumber } from './values.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether a value is a FEEL number. */
export function isNumber(value: unknown): value is FeelNumber {
  return typeof value === 'number' || value instanceof Decimal;
}

/** The decimal of a number (allocates for the fast-path form). */
export function toDecimal(value: FeelNumber): Decimal {
  return typeof value === 'number' ? Decimal.of(BigInt(value), 0) : value;
}

/** Back to the fast path when the decimal is a safe integer at scale 0. */
export function normalize(value: Decimal): FeelNumber {
  if (value.scale === 0 && value.unscaled <= MAX_SAFE && value.unscaled >= -MAX_SAFE) {
    // `+ 0` turns -0 into 0.
    return Number(value.unscaled) + 0;
  }
  return value;
}

/** A FEEL number from a bigint. */
export function fromBigInt(value: bigint): FeelNumber {
  return normalize(Decimal.of(value, 0));
}

/**
 * A FEEL number from a JS integer: the value itself when safe, else its exact decimal.
 * For a double that is not an integer use {@link fromDouble}.
 */
export function fromInteger(value: number): FeelNumber {
  return Number.isSafeInteger(value) ? value + 0 : fromBigInt(BigInt(value));
}

/**
 * The FEEL number Scala's `BigDecimal(double)` makes (feel-scala's results of `sqrt`, `log`, `**` with a
 * fraction, `stddev`, `random number`): the digits of Java's `Double.toString`, so `sqrt(16)` is `4.0`.
 *
 * @returns null for NaN and ±Infinity (Java throws there).
 */
export function fromDouble(value: number): FeelNumber | null {
  const decimal = decimalFromDouble(value);
  return decimal === null ? null : normalize(decimal);
}

/**
 * A FEEL number from a JSON number: a safe integer as is, another integer exactly, a fraction as the
 * decimal Zeebe reads from a float (Java's `BigDecimal.valueOf(double)`).
 *
 * @returns null for NaN and ±Infinity.
 */
export function fromJsonNumber(value: number): FeelNumber | null {
  if (Number.isSafeInteger(value)) return value + 0;
  if (!Number.isFinite(value)) return null;
  if (Number.isInteger(value)) {
    const parsed = parseDecimal(String(value))!;
    return normalize(parsed.scale < 0 ? parsed.setScale(0, 'UNNECESSARY') : parsed);
  }
  return fromDouble(value);
}

/** Parses a FEEL number literal or `number("…")` text (Java's `BigDecimal(String)`). */
export function parseNumber(text: string): FeelNumber | null {
  const decimal = parseDecimal(text);
  return decimal === null ? null : normalize(decimal);
}

/** `a + b`, rounded to 34 digits. */
export function add(a: FeelNumber, b: FeelNumber): FeelNumber {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return normalize(toDecimal(a).plus(toDecimal(b)));
}

/** `a - b`, rounded to 34 digits. */
export function subtract(a: FeelNumber, b: FeelNumber): FeelNumber {
  if (typeof a === 'number' && typeof b === 'number') {
    const difference = a - b;
    if (Number.isSafeInteger(difference)) return difference + 0;
  }
  return normalize(toDecimal(a).minus(toDecimal(b)));
}

/** `a * b`, rounded to 34 digits. */
export function multiply(a: FeelNumber, b: FeelNumber): FeelNumber {
  if (typeof a === 'number' && typeof b === 'number') {
    // Exact when the true product is a safe integer: the double product then rounds to itself.
    const product = a * b;
    if (Number.isSafeInteger(product)) return product + 0;
  }
  return normalize(toDecimal(a).times(toDecimal(b)));
}

/** Division; the caller has checked that `b` is not zero. */
export function divide(a: FeelNumber, b: FeelNumber): FeelNumber {
  if (typeof a === 'number' && typeof b === 'number' && a % b === 0) return a / b + 0;
  return normalize(toDecimal(a).dividedBy(toDecimal(b)));
}

/** `-a`, keeping the scale. */
export function negate(a: FeelNumber): FeelNumber {
  return typeof a === 'number' ? 0 - a : normalize(a.negate());
}

/** The order of two numbers by value (`1.0` equals `1`): -1, 0 or 1. */
export function compare(a: FeelNumber, b: FeelNumber): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return toDecimal(a).compare(toDecimal(b));
}

/** Whether the number is zero (at any scale). */
export function isZero(a: FeelNumber): boolean {
  return typeof a === 'number' ? a === 0 : a.signum() === 0;
}

/** Whether the number is an integer (`2.00` is). */
export function isWhole(a: FeelNumber): boolean {
  return typeof a === 'number' || a.isWhole();
}

/** Java's `intValue()`: truncated toward zero, wrapped to 32 bits. */
export function intValue(a: FeelNumber): number {
  if (typeof a === 'number') return a | 0;
  return a.intValue();
}

/** The nearest double. */
export function toDouble(a: FeelNumber): number {
  return typeof a === 'number' ? a : a.toNumber();
}

/** Java's `BigDecimal.toString()` of the number. */
export function numberToString(a: FeelNumber): string {
  return typeof a === 'number' ? String(a) : a.toString();
}

/** `x ** n` for an integral exponent (Java's `pow(n, DECIMAL128)`). */
export function power(base: FeelNumber, exponent: number): FeelNumber {
  if (typeof base === 'number' && exponent >= 0 && exponent < 64) {
    const result = base ** exponent;
    if (Number.isSafeInteger(result)) return result + 0;
  }
  return normalize(decimalPow(toDecimal(base), exponent));
}

/** Java's `setScale(scale, mode)`. */
export function setScale(a: FeelNumber, scale: number, mode: RoundingMode): FeelNumber {
  return normalize(toDecimal(a).setScale(scale, mode));
}

/** Java's `remainder` (the sign follows the dividend), rounded to 34 digits. */
export function remainder(a: FeelNumber, b: FeelNumber): FeelNumber {
  if (typeof a === 'number' && typeof b === 'number') return (a % b) + 0;
  const x = toDecimal(a);
  const y = toDecimal(b);
  const scale = Math.max(x.scale, y.scale, 0);
  const ux = x.setScale(scale, 'UNNECESSARY').unscaled;
  const uy = y.setScale(scale, 'UNNECESSARY').unscaled;
  return normalize(Decimal.of(ux % uy, scale));
}
