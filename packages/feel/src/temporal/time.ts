/**
 * FEEL `time`: a local time (Java's `LocalTime`) and a time with an offset or a zone id
 * (feel-scala's `ZonedTime`), both held as nanoseconds of the day.
 *
 * @module
 */
import { pad2 } from './date.js';

/** Nanoseconds in a day. */
export const NANOS_PER_DAY = 86_400_000_000_000;
/** Nanoseconds in a second. */
export const NANOS_PER_SECOND = 1_000_000_000;

/** `HH:mm:ss` plus the shortest fraction (feel-scala's time formatter). */
export function formatClock(nanoOfDay: number): string {
  const second = Math.floor(nanoOfDay / NANOS_PER_SECOND);
  const nano = nanoOfDay - second * NANOS_PER_SECOND;
  const base = `${pad2(Math.floor(second / 3600))}:${pad2(Math.floor(second / 60) % 60)}:${pad2(second % 60)}`;
  if (nano === 0) return base;
  return `${base}.${String(nano).padStart(9, '0').replace(/0+$/, '')}`;
}

/** Java's `LocalTime.toString()`: seconds only when not zero, fraction in groups of 3 digits. */
export function formatClockJava(nanoOfDay: number): string {
  const second = Math.floor(nanoOfDay / NANOS_PER_SECOND);
  const nano = nanoOfDay - second * NANOS_PER_SECOND;
  let text = `${pad2(Math.floor(second / 3600))}:${pad2(Math.floor(second / 60) % 60)}`;
  if (second % 60 === 0 && nano === 0) return text;
  text += `:${pad2(second % 60)}`;
  if (nano === 0) return text;
  const digits = String(nano).padStart(9, '0');
  if (nano % 1_000_000 === 0) return `${text}.${digits.slice(0, 3)}`;
  if (nano % 1000 === 0) return `${text}.${digits.slice(0, 6)}`;
  return `${text}.${digits}`;
}

/** Java's `ZoneOffset.getId()`: `Z`, `+01:00`, `-05:30:15`. */
export function formatOffset(offsetSeconds: number): string {
  if (offsetSeconds === 0) return 'Z';
  const abs = Math.abs(offsetSeconds);
  const text = `${offsetSeconds < 0 ? '-' : '+'}${pad2(Math.floor(abs / 3600))}:${pad2(Math.floor(abs / 60) % 60)}`;
  return abs % 60 === 0 ? text : `${text}:${pad2(abs % 60)}`;
}

/** Wraps nanoseconds into one day, as `LocalTime.plus` does. */
export function wrapNanoOfDay(nanos: number): number {
  const wrapped = nanos % NANOS_PER_DAY;
  return wrapped < 0 ? wrapped + NANOS_PER_DAY : wrapped;
}

/** A FEEL local time: `time("10:30:00")`. */
export class FeelLocalTime {
  constructor(
    /** 0 ≤ nanoOfDay < 86,400 × 10^9. */
    readonly nanoOfDay: number,
  ) {}

  get hour(): number {
    return Math.floor(this.nanoOfDay / 3_600_000_000_000);
  }

  get minute(): number {
    return Math.floor(this.nanoOfDay / 60_000_000_000) % 60;
  }

  get second(): number {
    return Math.floor(this.nanoOfDay / NANOS_PER_SECOND) % 60;
  }

  /** Adds (wrapping around midnight) nanoseconds. */
  plusNanos(nanos: number): FeelLocalTime {
    return new FeelLocalTime(wrapNanoOfDay(this.nanoOfDay + nanos));
  }

  compare(other: FeelLocalTime): number {
    return this.nanoOfDay - other.nanoOfDay;
  }

  equals(other: FeelLocalTime): boolean {
    return this.nanoOfDay === other.nanoOfDay;
  }

  /** FEEL's form: `10:30:00`. */
  toString(): string {
    return formatClock(this.nanoOfDay);
  }
}

/** A FEEL time with an offset (`10:30:00+01:00`) or a zone id (`10:30:00@Europe/Berlin`). */
export class FeelTime {
  constructor(
    /** Local nanoseconds of the day. */
    readonly nanoOfDay: number,
    /** Offset from UTC in seconds (for a zone id: the zone's standard offset when it was read). */
    readonly offsetSeconds: number,
    /** The zone id, or null for a plain offset. */
    readonly zone: string | null,
  ) {}

  get hour(): number {
    return Math.floor(this.nanoOfDay / 3_600_000_000_000);
  }

  get minute(): number {
    return Math.floor(this.nanoOfDay / 60_000_000_000) % 60;
  }

  get second(): number {
    return Math.floor(this.nanoOfDay / NANOS_PER_SECOND) % 60;
  }

  /** The moment in the UTC day, used to compare (feel-scala's `ZonedTime.nanos`). */
  utcNanos(): number {
    return this.nanoOfDay - this.offsetSeconds * NANOS_PER_SECOND;
  }

  plusNanos(nanos: number): FeelTime {
    return new FeelTime(wrapNanoOfDay(this.nanoOfDay + nanos), this.offsetSeconds, this.zone);
  }

  compare(other: FeelTime): number {
    return this.utcNanos() - other.utcNanos();
  }

  /** Equal fields (feel-scala compares the case class: time, offset and zone). */
  equals(other: FeelTime): boolean {
    return this.nanoOfDay === other.nanoOfDay && this.offsetSeconds === other.offsetSeconds && this.zone === other.zone;
  }

  /** FEEL's form: `10:30:00+01:00`, `10:30:00Z` or `10:30:00@Europe/Berlin`. */
  toString(): string {
    const clock = formatClock(this.nanoOfDay);
    return this.zone === null ? clock + formatOffset(this.offsetSeconds) : `${clock}@${this.zone}`;
  }
}
