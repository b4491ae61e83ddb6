import { describe, expect, it } from 'vitest';
import type { TimerSpec } from '../src/model/types.js';
import { CronError, cronIssue, parseCron } from '../src/timers/cron.js';
import { CRON_SEARCH_YEARS, nextCronOccurrence } from '../src/timers/cron-next.js';
import { isCronCycle, nextFiring, nextInCycle, scheduleTimer, TimerSpecError } from '../src/timers/schedule.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace('.000Z', 'Z'));
const next = (expression: string, from: string) => iso(nextCronOccurrence(expression, at(from)));

// 2026-01-01 is a Thursday; 2028 is a leap year (2028-02-29 a Tuesday).
describe('nextCronOccurrence', () => {
  it.each([
    // every 15 minutes
    ['0 */15 * * * *', '2026-01-01T00:07:30Z', '2026-01-01T00:15:00Z'],
    ['0 */15 * * * *', '2026-01-01T00:15:00Z', '2026-01-01T00:30:00Z'], // strictly after `from`
    ['0 */15 * * * *', '2026-01-01T23:50:00Z', '2026-01-02T00:00:00Z'],
    ['0 0/15 * * * *', '2026-01-01T00:45:00Z', '2026-01-01T01:00:00Z'],
    ['*/10 * * * * *', '2026-01-01T00:00:05.500Z', '2026-01-01T00:00:10Z'],
    ['30 * * * * *', '2026-01-01T00:00:30.250Z', '2026-01-01T00:01:30Z'],
    // weekdays 9–17, on the hour
    ['0 0 9-17 * * MON-FRI', '2026-01-01T10:30:00Z', '2026-01-01T11:00:00Z'],
    ['0 0 9-17 * * MON-FRI', '2026-01-01T17:00:00Z', '2026-01-02T09:00:00Z'],
    ['0 0 9-17 * * MON-FRI', '2026-01-02T17:00:00Z', '2026-01-05T09:00:00Z'], // Friday evening → Monday
    ['0 0 9-17 * * 1-5', '2026-01-03T12:00:00Z', '2026-01-05T09:00:00Z'],
    ['0 0 9 * * mon-fri', '2026-01-01T00:00:00Z', '2026-01-01T09:00:00Z'], // names in any case
    // day-of-week numbering: Sunday is 0 and 7; `*` is Spring's 1–7, so */2 = Mon, Wed, Fri, Sun
    ['0 0 12 * * 0', '2026-01-01T00:00:00Z', '2026-01-04T12:00:00Z'],
    ['0 0 12 * * 7', '2026-01-01T00:00:00Z', '2026-01-04T12:00:00Z'],
    ['0 0 12 * * SUN', '2026-01-01T00:00:00Z', '2026-01-04T12:00:00Z'],
    ['0 0 0 * * */2', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'],
    ['0 0 0 * * */2', '2026-01-02T00:00:00Z', '2026-01-04T00:00:00Z'],
    // last day of the month, across February in a leap year and not
    ['0 0 0 L * *', '2028-02-10T00:00:00Z', '2028-02-29T00:00:00Z'],
    ['0 0 0 L * *', '2027-02-10T00:00:00Z', '2027-02-28T00:00:00Z'],
    ['0 0 0 L * *', '2028-01-31T00:00:00Z', '2028-02-29T00:00:00Z'],
    ['0 0 0 L * *', '2028-02-29T00:00:00Z', '2028-03-31T00:00:00Z'],
    ['0 0 0 L-3 * *', '2026-01-01T00:00:00Z', '2026-01-28T00:00:00Z'],
    ['0 0 0 L-3 * *', '2028-02-01T00:00:00Z', '2028-02-26T00:00:00Z'],
    ['0 0 0 LW * *', '2026-01-01T00:00:00Z', '2026-01-30T00:00:00Z'], // 31st a Saturday
    ['0 0 0 LW * *', '2026-05-01T00:00:00Z', '2026-05-29T00:00:00Z'], // 31st a Sunday
    ['0 0 0 LW * *', '2028-02-01T00:00:00Z', '2028-02-29T00:00:00Z'], // 29th a Tuesday
    // nearest weekday
    ['0 0 0 1W * *', '2026-07-15T00:00:00Z', '2026-08-03T00:00:00Z'], // Sat 1st → Mon 3rd
    ['0 0 0 1W * *', '2026-01-15T00:00:00Z', '2026-02-02T00:00:00Z'], // Sun 1st → Mon 2nd
    ['0 0 0 1W * *', '2026-01-01T00:00:00Z', '2026-02-02T00:00:00Z'], // Thu 1st at 00:00 is `from` itself
    ['0 0 0 15W * *', '2026-08-01T00:00:00Z', '2026-08-14T00:00:00Z'], // Sat 15th → Fri 14th
    ['0 0 0 15W * *', '2026-02-01T00:00:00Z', '2026-02-16T00:00:00Z'], // Sun 15th → Mon 16th
    ['0 0 0 31W * *', '2026-04-01T00:00:00Z', '2026-05-29T00:00:00Z'], // no 31 April; Sun 31 May → Fri 29th
    // n-th and last day of the week in the month
    ['0 0 0 ? * MON#2', '2026-01-01T00:00:00Z', '2026-01-12T00:00:00Z'],
    ['0 0 0 ? * 1#2', '2026-01-12T00:00:00Z', '2026-02-09T00:00:00Z'],
    ['0 0 0 ? * SAT#5', '2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z'],
    ['0 0 0 ? * THU#5', '2026-02-01T00:00:00Z', '2026-04-30T00:00:00Z'], // no 5th Thursday in Feb/Mar
    ['0 0 0 * * 5L', '2026-01-01T00:00:00Z', '2026-01-30T00:00:00Z'],
    ['0 0 0 * * FRIL', '2026-01-30T00:00:00Z', '2026-02-27T00:00:00Z'],
    // day-of-month and day-of-week must both match, as in Spring: Friday the 13th
    ['0 0 0 13 * FRI', '2026-01-01T00:00:00Z', '2026-02-13T00:00:00Z'],
    ['0 0 0 13 * FRI', '2026-02-13T00:00:00Z', '2026-03-13T00:00:00Z'],
    // lists, ranges with steps, months by name, month lengths, year ends
    ['0 30 9 * JAN-MAR,DEC *', '2026-04-01T00:00:00Z', '2026-12-01T09:30:00Z'],
    ['0 0 10 5/10 * ?', '2026-01-01T00:00:00Z', '2026-01-05T10:00:00Z'],
    ['0 0 10 5/10 * ?', '2026-01-25T10:00:00Z', '2026-02-05T10:00:00Z'],
    ['0 0 6,19 * * *', '2026-01-01T06:00:00Z', '2026-01-01T19:00:00Z'],
    ['0 0 0 31 * *', '2026-02-01T00:00:00Z', '2026-03-31T00:00:00Z'],
    ['0 0 0 29 2 ?', '2026-01-01T00:00:00Z', '2028-02-29T00:00:00Z'],
    ['0 0 0 * * *', '2026-12-31T23:59:59Z', '2027-01-01T00:00:00Z'],
    ['59 59 23 31 12 *', '2026-12-31T23:59:59Z', '2027-12-31T23:59:59Z'],
    // macros
    ['@daily', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'],
    ['@midnight', '2026-01-01T12:00:00Z', '2026-01-02T00:00:00Z'],
    ['@hourly', '2026-01-01T00:59:59Z', '2026-01-01T01:00:00Z'],
    ['@weekly', '2026-01-01T00:00:00Z', '2026-01-04T00:00:00Z'], // Sunday
    ['@monthly', '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'],
    ['@yearly', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['@ANNUALLY', '2026-06-01T00:00:00Z', '2027-01-01T00:00:00Z'],
  ])('%s after %s is %s', (expression, from, expected) => {
    expect(next(expression, from)).toBe(expected);
  });

  it.each([
    ['0 0 0 30 2 ?'], // February 30th
    ['0 0 0 31 4,6,9,11 *'], // 31st of a 30-day month
    ['0 0 0 L-30 2 *'],
  ])('%s never fires: null, after searching %s years', (expression) => {
    expect(CRON_SEARCH_YEARS).toBe(400);
    expect(nextCronOccurrence(expression, at('2026-01-01T00:00:00Z'))).toBeNull();
  });

  it('finds a leap day across a century that is no leap year (2100): 2096 → 2104', () => {
    expect(next('0 0 0 29 2 ?', '2096-03-01T00:00:00Z')).toBe('2104-02-29T00:00:00Z');
  });

  it('walks a schedule occurrence by occurrence: weekdays 9–17 for a fortnight', () => {
    let from = at('2026-01-01T00:00:00Z');
    const seen: string[] = [];
    for (let i = 0; i < 90; i++) {
      const due = nextCronOccurrence('0 0 9-17 * * MON-FRI', from)!;
      expect(due).toBeGreaterThan(from);
      const date = new Date(due);
      expect(date.getUTCDay()).toBeGreaterThanOrEqual(1);
      expect(date.getUTCDay()).toBeLessThanOrEqual(5);
      expect(date.getUTCHours()).toBeGreaterThanOrEqual(9);
      expect(date.getUTCHours()).toBeLessThanOrEqual(17);
      expect(date.getUTCMinutes() + date.getUTCSeconds()).toBe(0);
      seen.push(iso(due)!);
      from = due;
    }
    // 10 weekdays × 9 hours: Thu 1st to Wed 14th
    expect(seen[0]).toBe('2026-01-01T09:00:00Z');
    expect(seen[18]).toBe('2026-01-05T09:00:00Z');
    expect(seen[89]).toBe('2026-01-14T17:00:00Z');
  });

  it('accepts a parsed schedule, and throws a CronError for a malformed text', () => {
    expect(nextCronOccurrence(parseCron('0 0 9 * * *'), at('2026-01-01T00:00:00Z'))).toBe(at('2026-01-01T09:00:00Z'));
    expect(() => nextCronOccurrence('0 0 9 * *', 0)).toThrow(CronError);
    expect(() => nextCronOccurrence('@fortnightly', 0)).toThrow(/unknown cron macro @fortnightly/);
  });
});

describe('parseCron', () => {
  it('reads each field into values and day rules (days of the week as getUTCDay numbers)', () => {
    expect(parseCron('0 */20 9-11 L,15W JAN,JUN-AUG/2 MON#2,5L,SUN')).toEqual({
      seconds: [0],
      minutes: [0, 20, 40],
      hours: [9, 10, 11],
      months: [1, 6, 8],
      daysOfMonth: [
        { kind: 'last', offset: 0 },
        { kind: 'nearestWeekday', day: 15 },
      ],
      daysOfWeek: [
        { kind: 'nthOfWeek', weekday: 1, nth: 2 },
        { kind: 'lastOfWeek', weekday: 5 },
        { kind: 'days', days: [0] },
      ],
    });
    expect(parseCron('@weekly')).toEqual(parseCron('0 0 0 * * 0'));
    expect(parseCron('0 0 0 ? * *').daysOfMonth).toEqual([{ kind: 'any' }]);
  });

  it('reports issues exactly as cronIssue does', () => {
    expect(cronIssue('0 60 * * * *')).toBe('minute field "60": 60 is outside 0–59');
    expect(() => parseCron('0 60 * * * *')).toThrow('minute field "60": 60 is outside 0–59');
    expect(cronIssue('0 0 0 1 ? *')).toMatch(/^month field "\?"/);
    expect(cronIssue('0 0 9 * * MON-FRI')).toBeNull();
  });
});

const CYCLE: TimerSpec = { kind: 'cycle', expression: { source: '"0 0 9 * * MON-FRI"', elementId: 'b' } };

describe('timer-spec: cron and start-dated cycles', () => {
  it('schedules a cron cycle at its first occurrence, stored as intervalMs 0 (recompute) forever', () => {
    const schedule = scheduleTimer(CYCLE, '0 0 9 * * MON-FRI', at('2026-01-01T00:00:00Z'));
    expect(schedule).toEqual({ dueAt: at('2026-01-01T09:00:00Z'), cycle: { intervalMs: 0, remaining: null } });
    expect(isCronCycle(schedule.cycle!)).toBe(true);
    expect(isCronCycle({ intervalMs: 3_600_000, remaining: null })).toBe(false);
  });

  it('re-derives a cron cycle at each firing from the evaluated expression', () => {
    const cron = { intervalMs: 0, remaining: null };
    const value = '0 0 9 * * MON-FRI';
    const thursday = at('2026-01-01T09:00:00Z');
    const friday = nextFiring(CYCLE, value, thursday, cron, thursday);
    expect(friday).toEqual({ dueAt: at('2026-01-02T09:00:00Z'), cycle: cron });
    expect(nextFiring(CYCLE, value, friday!.dueAt, cron, friday!.dueAt)?.dueAt).toBe(at('2026-01-05T09:00:00Z'));
    // a FEEL expression is evaluated again: a new value changes the schedule from this firing on
    expect(nextFiring(CYCLE, '0 30 12 * * *', thursday, cron, thursday)?.dueAt).toBe(at('2026-01-01T12:30:00Z'));
  });

  it('fires a cron cycle once after a gap, not once per missed occurrence', () => {
    const cron = { intervalMs: 0, remaining: null };
    const late = at('2026-01-06T12:00:00Z'); // Mon 5th and Tue 6th 9:00 missed
    expect(nextFiring(CYCLE, '0 0 9 * * MON-FRI', at('2026-01-02T09:00:00Z'), cron, late)?.dueAt).toBe(
      at('2026-01-07T09:00:00Z'),
    );
  });

  it('leaves interval cycles as nextInCycle has them', () => {
    const cycle = { intervalMs: 600_000, remaining: 2 };
    const due = at('2026-01-01T00:10:00Z');
    for (const now of [due, due + 30_000, due + 3_600_000]) {
      expect(nextFiring(CYCLE, undefined, due, cycle, now)).toEqual(nextInCycle(due, cycle, now));
    }
    expect(nextFiring(CYCLE, undefined, due, { intervalMs: 600_000, remaining: 0 }, due)).toBeNull();
    expect(nextInCycle(due, { intervalMs: 0, remaining: null }, due)).toBeNull();
  });

  it('refuses a cron with no occurrence, a malformed cron and a re-derived value that is not a text', () => {
    expect(() => scheduleTimer(CYCLE, '0 0 0 30 2 ?', 0)).toThrow(TimerSpecError);
    expect(() => scheduleTimer(CYCLE, '0 0 0 30 2 ?', 0)).toThrow(/never fires/);
    expect(() => scheduleTimer(CYCLE, '0 0 9 * * FUNDAY', 0)).toThrow(/is not a valid cron expression: day-of-week/);
    expect(() => nextFiring(CYCLE, null, 0, { intervalMs: 0, remaining: null }, 0)).toThrow(TimerSpecError);
  });

  it.each([
    // start in the future: the start is the first firing
    ['R5/2026-01-03T00:00:00Z/PT1H', '2026-01-03T00:00:00Z', 4],
    ['R/2026-01-01T06:30:00+01:00/PT1H', '2026-01-01T05:30:00Z', null],
    // start now
    ['R2/2026-01-01T00:00:00Z/PT12H', '2026-01-01T00:00:00Z', 1],
    // start in the past: caught up to start + k·interval at or after now; repetitions count from there
    ['R2/2025-12-31T18:00:00Z/PT24H', '2026-01-01T18:00:00Z', 1],
    ['R3/2025-12-31T00:00:00Z/PT12H', '2026-01-01T00:00:00Z', 2],
    ['R3/2025-12-31T23:59:59Z/PT7M', '2026-01-01T00:06:59Z', 2],
  ])('schedules %s first at %s (%s left)', (text, first, remaining) => {
    const intervalMs = { PT1H: 3_600_000, PT12H: 43_200_000, PT24H: 86_400_000, PT7M: 420_000 }[
      text.split('/')[2] as 'PT1H'
    ];
    expect(scheduleTimer(CYCLE, text, at('2026-01-01T00:00:00Z'))).toEqual({
      dueAt: at(first),
      cycle: { intervalMs, remaining },
    });
  });

  it('refuses a start date without a zone, or not a date', () => {
    expect(() => scheduleTimer(CYCLE, 'R5/2026-01-03T00:00:00/PT1H', 0)).toThrow(/with an offset or Z/);
    expect(() => scheduleTimer(CYCLE, 'R5/tomorrow/PT1H', 0)).toThrow(TimerSpecError);
    expect(() => scheduleTimer(CYCLE, 'R5/2026-01-03T00:00:00Z/P1M', 0)).toThrow(/months are not supported/);
  });
});
