/**
 * FEEL `date and time`: local (Java's `LocalDateTime`) and zoned (Java's `ZonedDateTime`, with a
 * fixed offset or a region's rules).
 *
 * @module
 */
import { dateOfEpochDay, type FeelDate } from './date.js';
import { formatClock, formatOffset, NANOS_PER_DAY } from './time.js';
import { offsetAt, offsetZone, resolveLocal, type Zone } from './zone.js';

const DAY_NANOS = BigInt(NANOS_PER_DAY);

/** A FEEL local date-time: `date and time("2024-05-01T10:30:00")`. */
export class FeelLocalDateTime {
  constructor(
    readonly date: FeelDate,
    /** 0 ≤ nanoOfDay < 86,400 × 10^9. */
    readonly nanoOfDay: number,
  ) {}

  /** Nanoseconds since 1970-01-01T00:00 of the local calendar. */
  localNanos(): bigint {
    return BigInt(this.date.toEpochDay()) * DAY_NANOS + BigInt(this.nanoOfDay);
  }

  /** The local date-time `nanos` nanoseconds after 1970-01-01T00:00. */
  static ofLocalNanos(nanos: bigint): FeelLocalDateTime {
    let day = nanos / DAY_NANOS;
    let rest = nanos - day * DAY_NANOS;
    if (rest < 0n) {
      day -= 1n;
      rest += DAY_NANOS;
    }
    return new FeelLocalDateTime(dateOfEpochDay(Number(day)), Number(rest));
  }

  plusNanos(nanos: bigint): FeelLocalDateTime {
    return nanos === 0n ? this : FeelLocalDateTime.ofLocalNanos(this.localNanos() + nanos);
  }

  plusMonths(months: number): FeelLocalDateTime {
    return new FeelLocalDateTime(this.date.plusMonths(months), this.nanoOfDay);
  }

  compare(other: FeelLocalDateTime): number {
    return this.date.compare(other.date) || this.nanoOfDay - other.nanoOfDay;
  }

  equals(other: FeelLocalDateTime): boolean {
    return this.date.equals(other.date) && this.nanoOfDay === other.nanoOfDay;
  }

  /** FEEL's (and ISO's) form: `2024-05-01T10:30:00`. */
  toString(): string {
    return `${this.date.toString()}T${formatClock(this.nanoOfDay)}`;
  }
}

/** A FEEL date-time with an offset (`…T10:30:00+02:00`) or a zone (`…T10:30:00@Europe/Berlin`). */
export class FeelDateTime {
  constructor(
    readonly local: FeelLocalDateTime,
    /** The offset in force, in seconds. */
    readonly offsetSeconds: number,
    readonly zone: Zone,
  ) {}

  get date(): FeelDate {
    return this.local.date;
  }

  get nanoOfDay(): number {
    return this.local.nanoOfDay;
  }

  /** Whether it has a zone id (feel-scala's `timezone` property), not only an offset. */
  hasTimeZone(): boolean {
    return !this.zone.isOffset;
  }

  /** Nanoseconds since the epoch (the instant). */
  epochNanos(): bigint {
    return this.local.localNanos() - BigInt(this.offsetSeconds) * 1_000_000_000n;
  }

  /** The date-time at an instant, in a zone. */
  static ofInstant(epochNanos: bigint, zone: Zone): FeelDateTime {
    const second = Number(epochNanos / 1_000_000_000n) - (epochNanos % 1_000_000_000n < 0n ? 1 : 0);
    const offset = offsetAt(zone, second);
    const local = FeelLocalDateTime.ofLocalNanos(epochNanos + BigInt(offset) * 1_000_000_000n);
    return new FeelDateTime(local, offset, zone);
  }

  /** Java's `ZonedDateTime.ofLocal`: a local date-time in a zone (gaps and overlaps resolved as Java does). */
  static ofLocal(local: FeelLocalDateTime, zone: Zone, preferredOffset: number | null = null): FeelDateTime {
    const localSecond = Number(local.localNanos() / 1_000_000_000n);
    const { offset, shift } = resolveLocal(zone, localSecond, preferredOffset);
    const shifted = shift === 0 ? local : local.plusNanos(BigInt(shift) * 1_000_000_000n);
    return new FeelDateTime(shifted, offset, zone);
  }

  /** A local date-time at a fixed offset. */
  static atOffset(local: FeelLocalDateTime, offsetSeconds: number): FeelDateTime {
    return new FeelDateTime(local, offsetSeconds, offsetZone(offsetSeconds));
  }

  /** Adds a time-based amount: on the instant, as Java does. */
  plusNanos(nanos: bigint): FeelDateTime {
    if (nanos === 0n) return this;
    if (this.zone.fixed !== null) return new FeelDateTime(this.local.plusNanos(nanos), this.offsetSeconds, this.zone);
    return FeelDateTime.ofInstant(this.epochNanos() + nanos, this.zone);
  }

  /** Adds months on the local date-time, keeping the offset where still valid (Java's `plus(Period)`). */
  plusMonths(months: number): FeelDateTime {
    if (months === 0) return this;
    return FeelDateTime.ofLocal(this.local.plusMonths(months), this.zone, this.offsetSeconds);
  }

  withZoneSameInstant(zone: Zone): FeelDateTime {
    return FeelDateTime.ofInstant(this.epochNanos(), zone);
  }

  /** Java's `compareTo`: instant, then local date-time, then zone id. */
  compare(other: FeelDateTime): number {
    const a = this.epochNanos();
    const b = other.epochNanos();
    if (a !== b) return a < b ? -1 : 1;
    const local = this.local.compare(other.local);
    if (local !== 0) return local;
    return this.zone.id < other.zone.id ? -1 : this.zone.id > other.zone.id ? 1 : 0;
  }

  /** Java's `equals`: same local date-time, offset and zone. */
  equals(other: FeelDateTime): boolean {
    return (
      this.local.equals(other.local) && this.offsetSeconds === other.offsetSeconds && this.zone.id === other.zone.id
    );
  }

  /** FEEL's form: `2024-05-01T10:30:00+02:00`, or `2024-05-01T10:30:00@Europe/Berlin` with a zone id. */
  toString(): string {
    const local = this.local.toString();
    return this.hasTimeZone() ? `${local}@${this.zone.id}` : local + formatOffset(this.offsetSeconds);
  }

  /** Java's `ISO_OFFSET_DATE_TIME`: `2024-05-01T10:30:00+02:00` (the zone id dropped). */
  toIsoOffsetString(): string {
    return this.local.toString() + formatOffset(this.offsetSeconds);
  }

  /** Java's `ISO_ZONED_DATE_TIME`: `2024-05-01T10:30:00+02:00[Europe/Berlin]`. */
  toIsoZonedString(): string {
    return this.toIsoOffsetString() + (this.hasTimeZone() ? `[${this.zone.id}]` : '');
  }
}
