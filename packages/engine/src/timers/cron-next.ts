/**
 * When a cron expression next fires. Expressions are read by `model/cron.ts` (Spring's six fields, as
 * Zeebe's `timeCycle` takes them) and evaluated here **in UTC**: Zeebe evaluates them in the broker's
 * time zone; Thresher has no engine time zone, so `0 0 9 * * MON-FRI` is 9:00 UTC on weekdays whatever
 * the host's zone.
 *
 * The rules follow Spring's `CronExpression`:
 * - a field's list is a union (`0,30`), and every field must match — including day-of-month *and*
 *   day-of-week together (`0 0 0 13 * FRI` is Friday the 13th); `*` and `?` match any day;
 * - day-of-month `L` (last day), `L-n` (n days before it), `LW` (last Monday–Friday), `nW` (the
 *   Monday–Friday nearest day n: a Saturday moves back to Friday, a Sunday on to Monday, `1W` on a
 *   Saturday on to Monday the 3rd; a day n the month does not have never matches). One difference:
 *   a Sunday `nW` on the last day of the month moves back to the Friday, staying in the month (Quartz's
 *   rule), where Spring would move it on to the 1st of the next month;
 * - day-of-week `dL` (the last such day of the month), `d#n` (the n-th; months without one skip).
 *
 * @module
 */
import { type CronDayRule, type CronSchedule, parseCron } from './cron.js';

/**
 * How far the search looks ahead. The Gregorian calendar repeats itself every 400 years (weekdays and leap
 * years alike), so a day pattern that matches nothing in that span — `0 0 0 30 2 ?` — never matches.
 */
export const CRON_SEARCH_YEARS = 400;

/**
 * The first instant strictly after `after` (epoch ms) at which `cron` fires, in whole seconds UTC; null
 * when it never does (no day of the calendar matches it).
 *
 * @throws CronError when `cron` is a text that is not a cron expression.
 */
export function nextCronOccurrence(cron: string | CronSchedule, after: number): number | null {
  const schedule = typeof cron === 'string' ? parseCron(cron) : cron;
  const start = new Date(Math.floor(after / 1000) * 1000 + 1000);
  let year = start.getUTCFullYear();
  let month = start.getUTCMonth() + 1;
  let day = start.getUTCDate();
  /** The earliest time of day still open on the day being looked at; null from the day after the start. */
  let from: Time | null = [start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds()];
  const lastYear = year + CRON_SEARCH_YEARS;
  while (year <= lastYear) {
    if (schedule.months.includes(month)) {
      const shape = { length: daysIn(year, month), firstWeekday: new Date(Date.UTC(year, month - 1, 1)).getUTCDay() };
      for (; day <= shape.length; day++, from = null) {
        if (!dayMatches(schedule, shape, day)) continue;
        const at = firstTime(schedule, from);
        if (at) return Date.UTC(year, month - 1, day, at[0], at[1], at[2]);
      }
    }
    from = null;
    day = 1;
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return null;
}

type Time = [hour: number, minute: number, second: number];

interface MonthShape {
  length: number;
  /** The day of the week of the 1st: 0 Sunday … 6 Saturday. */
  firstWeekday: number;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function weekdayOf(month: MonthShape, day: number): number {
  return (month.firstWeekday + day - 1) % 7;
}

/** The earliest time of day the hour, minute and second fields allow at or after `from` (midnight when null). */
function firstTime(schedule: CronSchedule, from: Time | null): Time | null {
  const [hour0, minute0, second0] = from ?? [0, 0, 0];
  for (const hour of schedule.hours) {
    if (hour < hour0) continue;
    for (const minute of schedule.minutes) {
      if (hour === hour0 && minute < minute0) continue;
      for (const second of schedule.seconds) {
        if (hour === hour0 && minute === minute0 && second < second0) continue;
        return [hour, minute, second];
      }
    }
  }
  return null;
}

function dayMatches(schedule: CronSchedule, month: MonthShape, day: number): boolean {
  return (
    schedule.daysOfMonth.some((rule) => dayOfMonthMatches(rule, month, day)) &&
    schedule.daysOfWeek.some((rule) => dayOfWeekMatches(rule, month, day))
  );
}

function dayOfMonthMatches(rule: CronDayRule, month: MonthShape, day: number): boolean {
  switch (rule.kind) {
    case 'any':
      return true;
    case 'days':
      return rule.days.includes(day);
    case 'last':
      return day === month.length - rule.offset;
    case 'lastWeekday': {
      const weekday = weekdayOf(month, month.length);
      return day === month.length - (weekday === 6 ? 1 : weekday === 0 ? 2 : 0);
    }
    case 'nearestWeekday':
      return rule.day <= month.length && day === nearestWeekday(month, rule.day);
    default:
      return false;
  }
}

/** The Monday–Friday nearest day `target` of the month, within the month. */
function nearestWeekday(month: MonthShape, target: number): number {
  switch (weekdayOf(month, target)) {
    case 6: // Saturday: the Friday before, or Monday the 3rd for the 1st
      return target === 1 ? 3 : target - 1;
    case 0: // Sunday: the Monday after, or the Friday before for the last day
      return target === month.length ? target - 2 : target + 1;
    default:
      return target;
  }
}

function dayOfWeekMatches(rule: CronDayRule, month: MonthShape, day: number): boolean {
  const weekday = weekdayOf(month, day);
  switch (rule.kind) {
    case 'any':
      return true;
    case 'days':
      return rule.days.includes(weekday);
    case 'lastOfWeek':
      return weekday === rule.weekday && day + 7 > month.length;
    case 'nthOfWeek':
      return weekday === rule.weekday && Math.ceil(day / 7) === rule.nth;
    default:
      return false;
  }
}
