/**
 * FEEL's two durations: days and time (Java's `Duration`, held as nanoseconds) and years and months
 * (Java's `Period`, always normalized by feel-scala, held as total months).
 *
 * @module
 */

const NANOS_PER_SECOND = 1_000_000_000n;
const INT_MAX = 2 ** 31 - 1;

/** Thrown where Java's `Duration`/`Period` throws (a parse failure, an int or long overflow). */
export class InvalidDurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidDurationError';
  }
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** A FEEL days-and-time duration: `duration("P1DT2H")`. */
export class FeelDaysTimeDuration {
  constructor(
    /** The whole length in nanoseconds. */
    readonly nanos: bigint,
  ) {}

  static ofSeconds(seconds: number): FeelDaysTimeDuration {
    return new FeelDaysTimeDuration(BigInt(seconds) * NANOS_PER_SECOND);
  }

  static ofMillis(millis: number | bigint): FeelDaysTimeDuration {
    return new FeelDaysTimeDuration(BigInt(millis) * 1_000_000n);
  }

  /** Java's `getSeconds()`: whole seconds, rounded down (the nano part is never negative). */
  get seconds(): bigint {
    return floorDiv(this.nanos, NANOS_PER_SECOND);
  }

  /** Java's `getNano()`: 0–999,999,999. */
  get nanoPart(): number {
    return Number(this.nanos - this.seconds * NANOS_PER_SECOND);
  }

  /** Java's `toDays()`: whole seconds / 86400, truncated. */
  toDays(): bigint {
    return this.seconds / 86_400n;
  }

  toHours(): bigint {
    return this.seconds / 3600n;
  }

  toMinutes(): bigint {
    return this.seconds / 60n;
  }

  /** Java's `toMillis()`. */
  toMillis(): bigint {
    let seconds = this.seconds;
    let nanos = BigInt(this.nanoPart);
    if (seconds < 0n) {
      seconds += 1n;
      nanos -= NANOS_PER_SECOND;
    }
    return seconds * 1000n + nanos / 1_000_000n;
  }

  plus(other: FeelDaysTimeDuration): FeelDaysTimeDuration {
    return new FeelDaysTimeDuration(this.nanos + other.nanos);
  }

  minus(other: FeelDaysTimeDuration): FeelDaysTimeDuration {
    return new FeelDaysTimeDuration(this.nanos - other.nanos);
  }

  negated(): FeelDaysTimeDuration {
    return new FeelDaysTimeDuration(-this.nanos);
  }

  abs(): FeelDaysTimeDuration {
    return this.nanos < 0n ? this.negated() : this;
  }

  times(factor: number): FeelDaysTimeDuration {
    return new FeelDaysTimeDuration(this.nanos * BigInt(factor));
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  compare(other: FeelDaysTimeDuration): number {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  equals(other: FeelDaysTimeDuration): boolean {
    return this.nanos === other.nanos;
  }

  /** FEEL's form (feel-scala's): days, hours, minutes, whole seconds — `P1DT2H`, `-PT5M`, `P0D`. */
  toString(): string {
    const day = this.toDays();
    const hour = this.toHours() % 24n;
    const minute = this.toMinutes() % 60n;
    const second = this.seconds % 60n;
    if (day === 0n && hour === 0n && minute === 0n && second === 0n) return 'P0D';
    if (day <= 0n && hour <= 0n && minute <= 0n && second <= 0n) return `-${daysTime(-day, -hour, -minute, -second)}`;
    return daysTime(day, hour, minute, second);
  }

  /** Java's `Duration.toString()`: `PT26H3M1.5S` (hours are not folded into days). */
  toJavaString(): string {
    if (this.nanos === 0n) return 'PT0S';
    const seconds = this.seconds;
    const nanos = this.nanoPart;
    let effective = seconds;
    if (seconds < 0n && nanos > 0) effective += 1n;
    const hours = effective / 3600n;
    const minutes = (effective % 3600n) / 60n;
    const secs = effective % 60n;
    let text = 'PT';
    if (hours !== 0n) text += `${hours}H`;
    if (minutes !== 0n) text += `${minutes}M`;
    if (secs === 0n && nanos === 0 && text.length > 2) return text;
    text += seconds < 0n && nanos > 0 && secs === 0n ? '-0' : String(secs);
    if (nanos > 0) {
      const fraction = String(seconds < 0n ? 2 * 1_000_000_000 - nanos : nanos + 1_000_000_000).replace(/0+$/, '');
      text += `.${fraction.slice(1)}`;
    }
    return `${text}S`;
  }
}

function daysTime(day: bigint, hour: bigint, minute: bigint, second: bigint): string {
  let text = 'P';
  if (day !== 0n) text += `${day}D`;
  if (hour !== 0n || minute !== 0n || second !== 0n) {
    text += 'T';
    if (hour !== 0n) text += `${hour}H`;
    if (minute !== 0n) text += `${minute}M`;
    if (second !== 0n) text += `${second}S`;
  }
  return text;
}

/** A FEEL years-and-months duration: `duration("P1Y2M")`, normalized (`P14M` is `P1Y2M`). */
export class FeelYearsMonthsDuration {
  constructor(
    /** The whole length in months. */
    readonly totalMonths: number,
  ) {}

  /** Java's normalized `getYears()`: same sign as the total. */
  get years(): number {
    return Math.trunc(this.totalMonths / 12);
  }

  /** Java's normalized `getMonths()`: -11…11, same sign as the total. */
  get months(): number {
    return this.totalMonths % 12;
  }

  plus(other: FeelYearsMonthsDuration): FeelYearsMonthsDuration {
    return yearsMonths(this.totalMonths + other.totalMonths);
  }

  minus(other: FeelYearsMonthsDuration): FeelYearsMonthsDuration {
    return yearsMonths(this.totalMonths - other.totalMonths);
  }

  negated(): FeelYearsMonthsDuration {
    return new FeelYearsMonthsDuration(-this.totalMonths);
  }

  isZero(): boolean {
    return this.totalMonths === 0;
  }

  compare(other: FeelYearsMonthsDuration): number {
    return this.totalMonths - other.totalMonths;
  }

  equals(other: FeelYearsMonthsDuration): boolean {
    return this.totalMonths === other.totalMonths;
  }

  /** FEEL's form: `P1Y2M`, `-P3M`, `P0Y`. */
  toString(): string {
    const year = this.years;
    const month = this.months;
    if (year === 0 && month === 0) return 'P0Y';
    if (year <= 0 && month <= 0) return `-${yearsMonthsText(-year, -month)}`;
    return yearsMonthsText(year, month);
  }

  /** Java's `Period.toString()`: `P1Y2M`, `P0D`. */
  toJavaString(): string {
    if (this.totalMonths === 0) return 'P0D';
    return `P${this.years !== 0 ? `${this.years}Y` : ''}${this.months !== 0 ? `${this.months}M` : ''}`;
  }
}

function yearsMonthsText(year: number, month: number): string {
  return `P${year !== 0 ? `${year}Y` : ''}${month !== 0 ? `${month}M` : ''}`;
}

/**
 * A normalized years-and-months duration; Java keeps years and months as ints.
 *
 * @throws InvalidDurationError when the years do not fit an int.
 */
export function yearsMonths(totalMonths: number): FeelYearsMonthsDuration {
  if (!Number.isSafeInteger(totalMonths) || Math.abs(Math.trunc(totalMonths / 12)) > INT_MAX) {
    throw new InvalidDurationError(`years and months out of range: ${totalMonths} months`);
  }
  return new FeelYearsMonthsDuration(totalMonths);
}

const JAVA_DURATION =
  /^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$/i;
const LONG_MAX = 2n ** 63n - 1n;

/**
 * Java's `Duration.parse`: `PT1H30M`, `P2D`, `-PT0.5S`, each part with its own sign.
 *
 * @returns null where Java throws.
 */
export function parseJavaDuration(text: string): FeelDaysTimeDuration | null {
  const match = JAVA_DURATION.exec(text);
  if (!match) return null;
  const [, sign, days, t, hours, minutes, seconds, fraction] = match;
  if (t === 'T' || t === 't') return null;
  if (days === undefined && hours === undefined && minutes === undefined && seconds === undefined) return null;
  const part = (value: string | undefined, unit: bigint) => (value === undefined ? 0n : BigInt(value) * unit);
  let total =
    part(days, 86_400n * NANOS_PER_SECOND) +
    part(hours, 3600n * NANOS_PER_SECOND) +
    part(minutes, 60n * NANOS_PER_SECOND) +
    part(seconds, NANOS_PER_SECOND);
  if (fraction !== undefined && fraction !== '') {
    const nanos = BigInt(fraction.padEnd(9, '0'));
    total += seconds?.startsWith('-') ? -nanos : nanos;
  }
  if (total / NANOS_PER_SECOND > LONG_MAX || total / NANOS_PER_SECOND < -LONG_MAX - 1n) return null;
  return new FeelDaysTimeDuration(sign === '-' ? -total : total);
}

const JAVA_PERIOD = /^([-+]?)P(?:([-+]?[0-9]+)Y)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)W)?(?:([-+]?[0-9]+)D)?$/i;

/**
 * Java's `Period.parse`, normalized to total months (the days of a `P…D` text are dropped: FEEL's
 * years-and-months syntax never has them).
 *
 * @returns null where Java throws.
 */
export function parseJavaPeriod(text: string): FeelYearsMonthsDuration | null {
  const match = JAVA_PERIOD.exec(text);
  if (!match) return null;
  const [, sign, years, months, weeks, days] = match;
  if (years === undefined && months === undefined && weeks === undefined && days === undefined) return null;
  const int = (value: string | undefined) => {
    const n = value === undefined ? 0 : Number(value);
    if (Math.abs(n) > INT_MAX) throw new InvalidDurationError(`${value} does not fit an int`);
    return n;
  };
  try {
    const total = int(years) * 12 + int(months);
    int(weeks);
    int(days);
    return yearsMonths(sign === '-' ? -total : total);
  } catch {
    return null;
  }
}
