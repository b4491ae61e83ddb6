/**
 * An arbitrary-precision decimal with Java `BigDecimal` semantics: an unscaled integer and a scale, so
 * `1.50` keeps its trailing zero and `string(1.5 * 2)` is `"3.0"` exactly as in feel-scala. Arithmetic
 * rounds to 34 significant digits, half-even (Scala's default `MathContext.DECIMAL128`, which feel-scala's
 * `BigDecimal` numbers carry).
 *
 * A library such as decimal.js keeps no scale (it prints `3` for `1.5 * 2`), so the representation is
 * our own; the operations follow the documented contracts of `java.math.BigDecimal`.
 *
 * @module
 */

/** Rounding modes, named as `java.math.RoundingMode` names them. */
export const RoundingMode = {
  Up: 'UP',
  Down: 'DOWN',
  Ceiling: 'CEILING',
  Floor: 'FLOOR',
  HalfUp: 'HALF_UP',
  HalfDown: 'HALF_DOWN',
  HalfEven: 'HALF_EVEN',
  Unnecessary: 'UNNECESSARY',
} as const;
/** One of {@link RoundingMode}. */
export type RoundingMode = (typeof RoundingMode)[keyof typeof RoundingMode];

/** Significant digits of feel-scala's arithmetic (`MathContext.DECIMAL128`). */
export const PRECISION = 34;

/** Thrown where Java throws `ArithmeticException` (rounding needed under UNNECESSARY, huge powers). */
export class DecimalArithmeticError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecimalArithmeticError';
  }
}

const TEN = 10n;
const POWERS: bigint[] = [1n];

/** 10^n as a bigint, cached for small n. */
export function pow10(n: number): bigint {
  if (n < 64) {
    while (POWERS.length <= n) POWERS.push(POWERS[POWERS.length - 1]! * TEN);
    return POWERS[n]!;
  }
  return TEN ** BigInt(n);
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}

/** Number of decimal digits of `value` (1 for zero), as Java's `precision()` counts them. */
export function digitCount(value: bigint): number {
  const a = abs(value);
  if (a < 10n) return 1;
  // The string length is exact and fast enough for the sizes FEEL meets.
  return a.toString().length;
}

/** `a / b` rounded by `mode`; `b` must be positive. */
export function divideRounded(a: bigint, b: bigint, mode: RoundingMode): bigint {
  const q = a / b;
  const r = a % b;
  if (r === 0n) return q;
  const sign = a < 0n ? -1n : 1n;
  const twice = abs(r) * 2n;
  const half = twice === b ? 0 : twice > b ? 1 : -1;
  let up: boolean;
  switch (mode) {
    case 'UP':
      up = true;
      break;
    case 'DOWN':
      up = false;
      break;
    case 'CEILING':
      up = sign > 0n;
      break;
    case 'FLOOR':
      up = sign < 0n;
      break;
    case 'HALF_UP':
      up = half >= 0;
      break;
    case 'HALF_DOWN':
      up = half > 0;
      break;
    case 'HALF_EVEN':
      up = half > 0 || (half === 0 && (q & 1n) === 1n);
      break;
    default:
      throw new DecimalArithmeticError('Rounding necessary');
  }
  return up ? q + sign : q;
}

/**
 * An immutable decimal: the value `unscaled × 10^-scale`. Build with {@link Decimal.of} or
 * {@link parseDecimal}; a scale may be negative (`1E+3` is unscaled 1, scale -3).
 */
export class Decimal {
  private constructor(
    /** The digits, as an integer. */
    readonly unscaled: bigint,
    /** How many of the digits are after the decimal point. */
    readonly scale: number,
  ) {}

  /** The decimal `unscaled × 10^-scale`. */
  static of(unscaled: bigint, scale: number): Decimal {
    return new Decimal(unscaled, scale);
  }

  /** Negative, zero or positive: -1, 0 or 1. */
  signum(): number {
    return this.unscaled < 0n ? -1 : this.unscaled > 0n ? 1 : 0;
  }

  /** Number of significant digits. */
  precision(): number {
    return digitCount(this.unscaled);
  }

  /** Whether the value is an integer (`1.00` is). */
  isWhole(): boolean {
    if (this.scale <= 0) return true;
    return this.unscaled % pow10(this.scale) === 0n;
  }

  negate(): Decimal {
    return new Decimal(-this.unscaled, this.scale);
  }

  abs(): Decimal {
    return this.unscaled < 0n ? this.negate() : this;
  }

  /** The unscaled value at a larger scale (no rounding). */
  private upscaled(scale: number): bigint {
    return scale === this.scale ? this.unscaled : this.unscaled * pow10(scale - this.scale);
  }

  /** Compares by value, ignoring scale (`1.0` equals `1`), as Java's `compareTo`. */
  compare(other: Decimal): number {
    const s = Math.max(this.scale, other.scale);
    const a = this.upscaled(s);
    const b = other.upscaled(s);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Exact sum, at the larger of the two scales. */
  plusExact(other: Decimal): Decimal {
    const s = Math.max(this.scale, other.scale);
    return new Decimal(this.upscaled(s) + other.upscaled(s), s);
  }

  /** Java's `add(other, DECIMAL128)`. */
  plus(other: Decimal): Decimal {
    return roundTo(this.plusExact(other), PRECISION, 'HALF_EVEN');
  }

  /** Java's `subtract(other, DECIMAL128)`. */
  minus(other: Decimal): Decimal {
    return this.plus(other.negate());
  }

  /** Java's `multiply(other, DECIMAL128)`. */
  times(other: Decimal): Decimal {
    return roundTo(new Decimal(this.unscaled * other.unscaled, this.scale + other.scale), PRECISION, 'HALF_EVEN');
  }

  /**
   * Java's `divide(other, mc)`: the quotient rounded to `precision` digits; an exact quotient keeps
   * the scale nearest to `this.scale - other.scale`.
   *
   * @throws DecimalArithmeticError when `other` is zero.
   */
  dividedBy(other: Decimal, precision = PRECISION, mode: RoundingMode = 'HALF_EVEN'): Decimal {
    if (other.unscaled === 0n) throw new DecimalArithmeticError('Division by zero');
    const preferred = this.scale - other.scale;
    if (this.unscaled === 0n) return new Decimal(0n, preferred);
    // value = (ua / ub) × 10^(preferred); compute enough digits to round to `precision`.
    const ua = abs(this.unscaled);
    const ub = abs(other.unscaled);
    const negative = this.unscaled < 0n !== other.unscaled < 0n;
    // Shift so the integer quotient has at least precision + 1 digits.
    let shift = precision + 1 - (digitCount(ua) - digitCount(ub));
    if (shift < 0) shift = 0;
    const numerator = ua * pow10(shift);
    let q = numerator / ub;
    const exact = numerator % ub === 0n;
    let scale = preferred + shift;
    // Fold a non-zero remainder into a sticky digit so half-even sees it.
    if (!exact) {
      q = q * TEN + 1n;
      scale += 1;
    }
    let result = roundTo(new Decimal(negative ? -q : q, scale), precision, mode);
    if (exact) result = stripZerosTo(result, preferred);
    return result;
  }

  /** Java's `setScale(scale, mode)`. */
  setScale(scale: number, mode: RoundingMode): Decimal {
    if (scale === this.scale) return this;
    if (scale > this.scale) return new Decimal(this.upscaled(scale), scale);
    return new Decimal(divideRounded(this.unscaled, pow10(this.scale - scale), mode), scale);
  }

  /** Java's `stripTrailingZeros()`. */
  stripTrailingZeros(): Decimal {
    if (this.unscaled === 0n) return new Decimal(0n, 0);
    return stripZerosTo(this, Number.MIN_SAFE_INTEGER);
  }

  /** The integer part, truncated toward zero. */
  truncated(): bigint {
    if (this.scale <= 0) return this.unscaled * pow10(-this.scale);
    return this.unscaled / pow10(this.scale);
  }

  /** Java's `intValue()`: truncated, then the low 32 bits (so it wraps, as Java's does). */
  intValue(): number {
    return Number(BigInt.asIntN(32, this.truncated()));
  }

  /** Java's `longValue()`: truncated, then the low 64 bits. */
  longValue(): bigint {
    return BigInt.asIntN(64, this.truncated());
  }

  /** The nearest double, as Java's `doubleValue()`. */
  toNumber(): number {
    return Number(this.toString());
  }

  /** Java's `toString()`: plain unless the exponent is large, then `1.5E+7` style. */
  toString(): string {
    const digits = abs(this.unscaled).toString();
    const sign = this.unscaled < 0n ? '-' : '';
    const adjusted = -this.scale + (digits.length - 1);
    if (this.scale >= 0 && adjusted >= -6) {
      if (this.scale === 0) return sign + digits;
      if (digits.length > this.scale) {
        return `${sign}${digits.slice(0, digits.length - this.scale)}.${digits.slice(digits.length - this.scale)}`;
      }
      return `${sign}0.${'0'.repeat(this.scale - digits.length)}${digits}`;
    }
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
  }

  /** Java's `toPlainString()`: never an exponent. */
  toPlainString(): string {
    const digits = abs(this.unscaled).toString();
    const sign = this.unscaled < 0n ? '-' : '';
    if (this.scale <= 0) return sign + digits + '0'.repeat(-this.scale);
    if (digits.length > this.scale) {
      return `${sign}${digits.slice(0, digits.length - this.scale)}.${digits.slice(digits.length - this.scale)}`;
    }
    return `${sign}0.${'0'.repeat(this.scale - digits.length)}${digits}`;
  }
}

/** Rounds `value` to at most `precision` significant digits (Java's `doRound`). */
export function roundTo(value: Decimal, precision: number, mode: RoundingMode): Decimal {
  let result = value;
  let drop = result.precision() - precision;
  while (drop > 0) {
    result = Decimal.of(divideRounded(result.unscaled, pow10(drop), mode), result.scale - drop);
    // A carry (9.99 → 10.0) can add a digit; drop it too.
    drop = result.precision() - precision;
  }
  return result;
}

/** Strips trailing zeros while the scale stays at or above `preferred`. */
function stripZerosTo(value: Decimal, preferred: number): Decimal {
  let u = value.unscaled;
  let s = value.scale;
  while (s > preferred && u !== 0n && u % TEN === 0n) {
    u /= TEN;
    s -= 1;
  }
  return u === value.unscaled ? value : Decimal.of(u, s);
}

const DECIMAL_SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses Java's `BigDecimal(String)` syntax: `-12.50`, `.5`, `1e3`, `1.5E-7`.
 *
 * @returns the decimal, or null when `text` is not a number.
 */
export function parseDecimal(text: string): Decimal | null {
  const match = DECIMAL_SYNTAX.exec(text);
  if (!match) return null;
  const [, sign, int = '', frac = '', exp] = match;
  if (int === '' && frac === '') return null;
  if (exp !== undefined && Math.abs(Number(exp)) > 999_999_999) return null;
  const unscaled = BigInt(int + frac || '0');
  const scale = frac.length - (exp === undefined ? 0 : Number(exp));
  return Decimal.of(sign === '-' ? -unscaled : unscaled, scale);
}

/**
 * The decimal Java's `BigDecimal.valueOf(double)` (and Scala's `BigDecimal(double)`) makes: the digits
 * of `Double.toString`, which writes at least one fractional digit (`4.0`, `1.0E-7`).
 *
 * @returns null for NaN and ±Infinity, which Java refuses.
 */
export function decimalFromDouble(value: number): Decimal | null {
  if (!Number.isFinite(value)) return null;
  if (value === 0) return Decimal.of(0n, 1);
  const parsed = parseDecimal(String(value))!;
  const magnitude = Math.abs(value);
  // Plain range: Java writes "100.0"; JS "100". Exponent range: Java "1.0E-7"; JS "1e-7".
  const digits = digitCount(parsed.unscaled);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    return parsed.scale <= 0 ? parsed.setScale(1, 'UNNECESSARY') : parsed;
  }
  if (digits === 1) return parsed.setScale(parsed.scale + 1, 'UNNECESSARY');
  return parsed;
}

/**
 * Java's `pow(n, DECIMAL128)` (the X3.274 algorithm: working precision 34 + digits of |n| + 1,
 * reciprocal for a negative n, then rounded to 34 digits).
 *
 * @throws DecimalArithmeticError for |n| > 999999999, as Java does.
 */
export function decimalPow(base: Decimal, n: number): Decimal {
  if (n < -999_999_999 || n > 999_999_999) throw new DecimalArithmeticError('Invalid operation');
  if (n === 0) return Decimal.of(1n, 0);
  let mag = Math.abs(n);
  const work = PRECISION + String(mag).length + 1;
  let acc = Decimal.of(1n, 0);
  let seen = false;
  const times = (a: Decimal, b: Decimal) =>
    roundTo(Decimal.of(a.unscaled * b.unscaled, a.scale + b.scale), work, 'HALF_EVEN');
  for (let i = 1; ; i++) {
    // Java doubles a 32-bit int and tests its sign: the bits of |n| from the top.
    mag = (mag * 2) | 0;
    if (mag < 0) {
      seen = true;
      acc = times(acc, base);
    }
    if (i === 31) break;
    if (seen) acc = times(acc, acc);
  }
  if (n < 0) acc = Decimal.of(1n, 0).dividedBy(acc, work);
  return roundTo(acc, PRECISION, 'HALF_EVEN');
}
