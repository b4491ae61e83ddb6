/**
 * FEEL `date`: a calendar date without a time or zone (Java's `LocalDate`), and the proleptic
 * Gregorian arithmetic the other temporal values share (epoch days, month lengths, ISO weeks).
 *
 * @module
 */

/** Java's `LocalDate` range: years ±999,999,999. */
export const MAX_YEAR = 999_999_999;

/** Whether `year` is a leap year in the proleptic Gregorian calendar. */
export function isLeapYear(year: number): boolean {
  return (year & 3) === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Days in `month` (1–12) of `year`. */
export function lengthOfMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 (negative before). */
export function epochDayOf(year: number, month: number, day: number): number {
  // Howard Hinnant's days_from_civil, in floating point (exact for these magnitudes).
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date `epochDay` days after 1970-01-01. */
export function dateOfEpochDay(epochDay: number): FeelDate {
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return new FeelDate(year, month, day);
}

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Thrown where Java's `LocalDate` throws `DateTimeException` (a year out of range, 2021-02-30). */
export class InvalidDateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidDateError';
  }
}

/** A FEEL date: `date("2024-05-01")`, `@"2024-05-01"`. */
export class FeelDate {
  constructor(
    readonly year: number,
    /** 1–12. */
    readonly month: number,
    /** 1–31. */
    readonly day: number,
  ) {}

  /**
   * A validated date, as Java's `LocalDate.of`.
   *
   * @throws InvalidDateError when a field is out of range.
   */
  static of(year: number, month: number, day: number): FeelDate {
    if (!Number.isInteger(year) || Math.abs(year) > MAX_YEAR) throw new InvalidDateError(`Invalid year ${year}`);
    if (!Number.isInteger(month) || month < 1 || month > 12) throw new InvalidDateError(`Invalid month ${month}`);
    if (!Number.isInteger(day) || day < 1 || day > lengthOfMonth(year, month)) {
      throw new InvalidDateError(`Invalid date ${year}-${month}-${day}`);
    }
    return new FeelDate(year, month, day);
  }

  toEpochDay(): number {
    return epochDayOf(this.year, this.month, this.day);
  }

  /** ISO day of week: Monday 1 … Sunday 7. */
  dayOfWeek(): number {
    return ((((this.toEpochDay() + 3) % 7) + 7) % 7) + 1;
  }

  dayOfYear(): number {
    return this.toEpochDay() - epochDayOf(this.year, 1, 1) + 1;
  }

  /** English day name, as `day of week()` returns it. */
  dayName(): string {
    return DAY_NAMES[this.dayOfWeek() - 1]!;
  }

  /** English month name, as `month of year()` returns it. */
  monthName(): string {
    return MONTH_NAMES[this.month - 1]!;
  }

  /** ISO-8601 week of the week-based year (Java's `WeekFields.ISO.weekOfWeekBasedYear()`). */
  isoWeek(): number {
    const thursday = dateOfEpochDay(this.toEpochDay() - this.dayOfWeek() + 4);
    return Math.floor((thursday.dayOfYear() - 1) / 7) + 1;
  }

  /** Adds months, clamping the day to the month's length (Java's `plusMonths`). */
  plusMonths(months: number): FeelDate {
    if (months === 0) return this;
    const total = this.year * 12 + (this.month - 1) + months;
    const year = Math.floor(total / 12);
    const month = total - year * 12 + 1;
    if (Math.abs(year) > MAX_YEAR) throw new InvalidDateError(`Invalid year ${year}`);
    return new FeelDate(year, month, Math.min(this.day, lengthOfMonth(year, month)));
  }

  plusDays(days: number): FeelDate {
    if (days === 0) return this;
    const date = dateOfEpochDay(this.toEpochDay() + days);
    if (Math.abs(date.year) > MAX_YEAR) throw new InvalidDateError(`Invalid year ${date.year}`);
    return date;
  }

  lastDayOfMonth(): FeelDate {
    return new FeelDate(this.year, this.month, lengthOfMonth(this.year, this.month));
  }

  compare(other: FeelDate): number {
    return this.year - other.year || this.month - other.month || this.day - other.day;
  }

  equals(other: FeelDate): boolean {
    return this.year === other.year && this.month === other.month && this.day === other.day;
  }

  /** Java's `LocalDate.toString()`: `2024-05-01`, `+12345-01-01`, `-0005-01-01`. */
  toString(): string {
    const y = this.year;
    const absYear = Math.abs(y);
    let yearText: string;
    if (absYear < 1000) yearText = (y < 0 ? '-' : '') + String(absYear).padStart(4, '0');
    else yearText = (y > 9999 ? '+' : '') + String(y);
    return `${yearText}-${pad2(this.month)}-${pad2(this.day)}`;
  }
}

/** Two digits, zero-padded. */
export function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}
