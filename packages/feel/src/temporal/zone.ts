/**
 * Time zones as Java's `ZoneId` reads them: a fixed offset (`Z`, `+01:00`), a prefixed fixed zone
 * (`UTC`, `GMT+2`) or a region of the IANA database (`Europe/Berlin`), whose offsets come from the
 * platform's ICU through `temporal-polyfill`.
 *
 * @module
 */
import { Temporal } from 'temporal-polyfill';

/** A zone: its id as Java names it, and its offset when it never changes. */
export interface Zone {
  /** Java's `ZoneId.getId()`: `Z`, `+01:00`, `UTC`, `Europe/Berlin`. */
  readonly id: string;
  /** The constant offset in seconds, or null for a region with rules. */
  readonly fixed: number | null;
  /** Whether Java reads it as a `ZoneOffset` (a date-time in it has no time zone, only an offset). */
  readonly isOffset: boolean;
}

const REGION = /^[A-Za-z][A-Za-z0-9~/._+-]+$/;
const known = new Map<string, boolean>();

/**
 * Java's `ZoneOffset.of`: `Z`, `+1`, `+01`, `+01:30`, `+0130`, `+01:30:15`, at most ±18:00.
 *
 * @returns the offset in seconds, or null when Java refuses the text.
 */
export function parseOffset(text: string): number | null {
  if (text === 'Z') return 0;
  const sign = text[0];
  if (sign !== '+' && sign !== '-') return null;
  // Java reads by length: +h, +hh, +hhmm, +hh:mm, +hhmmss, +hh:mm:ss.
  const layouts: Record<number, RegExp> = {
    2: /^.(\d)$/,
    3: /^.(\d\d)$/,
    5: /^.(\d\d)(\d\d)$/,
    6: /^.(\d\d):(\d\d)$/,
    7: /^.(\d\d)(\d\d)(\d\d)$/,
    9: /^.(\d\d):(\d\d):(\d\d)$/,
  };
  const match = layouts[text.length]?.exec(text);
  if (!match) return null;
  const [h, m, s] = [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
  if (h > 18 || m > 59 || s > 59) return null;
  const seconds = h * 3600 + m * 60 + s;
  if (seconds > 18 * 3600) return null;
  return sign === '-' ? -seconds : seconds;
}

/** The zone Java names `ZoneOffset`: its id is `Z` or `±hh:mm[:ss]`. */
export function offsetZone(seconds: number): Zone {
  return { id: formatOffsetId(seconds), fixed: seconds, isOffset: true };
}

function formatOffsetId(seconds: number): string {
  if (seconds === 0) return 'Z';
  const abs = Math.abs(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  const text = `${seconds < 0 ? '-' : '+'}${two(Math.floor(abs / 3600))}:${two(Math.floor(abs / 60) % 60)}`;
  return abs % 60 === 0 ? text : `${text}:${two(abs % 60)}`;
}

/**
 * Java's `ZoneId.of`: an offset, `UTC`/`GMT`/`UT` with or without an offset, or a region id the
 * zone database knows, spelled exactly (ids are case-sensitive in Java).
 *
 * @returns the zone, or null when Java throws.
 */
export function parseZoneId(id: string): Zone | null {
  if (id === 'Z' || id.startsWith('+') || id.startsWith('-')) {
    const offset = parseOffset(id);
    return offset === null ? null : offsetZone(offset);
  }
  for (const prefix of ['UTC', 'GMT', 'UT']) {
    if (id === prefix) return { id, fixed: 0, isOffset: false };
    if (id.startsWith(prefix) && (id[prefix.length] === '+' || id[prefix.length] === '-')) {
      const offset = parseOffset(id.slice(prefix.length));
      if (offset === null) return null;
      return { id: offset === 0 ? prefix : prefix + formatOffsetId(offset), fixed: offset, isOffset: false };
    }
  }
  if (!REGION.test(id) || !isKnownRegion(id)) return null;
  return { id, fixed: null, isOffset: false };
}

function isKnownRegion(id: string): boolean {
  let ok = known.get(id);
  if (ok === undefined) {
    try {
      ok = Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(id).timeZoneId === id;
    } catch {
      ok = false;
    }
    known.set(id, ok);
  }
  return ok;
}

/**
 * The zone's offset at an instant.
 *
 * @param epochSecond seconds since 1970-01-01T00:00Z.
 * @returns the offset in seconds.
 */
export function offsetAt(zone: Zone, epochSecond: number): number {
  if (zone.fixed !== null) return zone.fixed;
  const instant = Temporal.Instant.fromEpochMilliseconds(inTemporalRange(epochSecond) * 1000);
  return instant.toZonedDateTimeISO(zone.id).offsetNanoseconds / 1_000_000_000;
}

// Temporal reads instants within ±100,000,000 days of 1970; FEEL (as Java) reaches year ±999,999,999.
// Beyond, the zone's rules are read a whole number of 400-year Gregorian cycles nearer: the same
// calendar day, so the same rule applies.
const CYCLE_SECONDS = 146_097 * 86_400;
const TEMPORAL_LIMIT_SECONDS = 8_640_000_000_000 - 2 * 86_400;

function inTemporalRange(epochSecond: number): number {
  if (Math.abs(epochSecond) <= TEMPORAL_LIMIT_SECONDS) return epochSecond;
  const cycles = Math.ceil((Math.abs(epochSecond) - TEMPORAL_LIMIT_SECONDS) / CYCLE_SECONDS);
  return epochSecond - Math.sign(epochSecond) * cycles * CYCLE_SECONDS;
}

/**
 * Java's standard (non-daylight-saving) offset of the zone in the year of an instant, approximated
 * as the smaller of the offsets in mid-January and mid-July.
 */
export function standardOffsetAt(zone: Zone, epochSecond: number): number {
  if (zone.fixed !== null) return zone.fixed;
  const year = new Date(inTemporalRange(epochSecond) * 1000).getUTCFullYear();
  const january = offsetAt(zone, Date.UTC(year, 0, 15) / 1000);
  const july = offsetAt(zone, Date.UTC(year, 6, 15) / 1000);
  return Math.min(january, july);
}

/** A local date-time's resolution in a zone: the offset to use, and a shift when it fell in a gap. */
export interface Resolution {
  offset: number;
  /** Seconds added to the local time (a gap's length), else 0. */
  shift: number;
}

/**
 * Java's `ZonedDateTime.ofLocal`: in an overlap the preferred offset if valid, else the earlier one;
 * in a gap the local time moves forward by the gap's length, with the offset after it.
 *
 * @param localSecond the local date-time as seconds since 1970-01-01T00:00 (as if it were UTC).
 */
export function resolveLocal(zone: Zone, localSecond: number, preferred: number | null): Resolution {
  if (zone.fixed !== null) return { offset: zone.fixed, shift: 0 };
  // Offsets in force a day before and after; a zone changes at most once in two days.
  const before = offsetAt(zone, localSecond - 86_400);
  const after = offsetAt(zone, localSecond + 86_400);
  const valid = [before, after].filter(
    (offset, i, all) => all.indexOf(offset) === i && offsetAt(zone, localSecond - offset) === offset,
  );
  if (valid.length === 0) return { offset: after, shift: after - before };
  if (valid.length === 2 && preferred !== null && valid.includes(preferred)) return { offset: preferred, shift: 0 };
  return { offset: valid[0]!, shift: 0 };
}
