import { describe, expect, test } from 'vitest';
import { FeelWarningType } from '../src/index.js';
import { feel, is, isNullWarned, plain } from './helpers.js';

describe('temporal literals and their text, as Zeebe writes them into variables', () => {
  is('date("2024-05-01")', '2024-05-01');
  is('@"2024-05-01"', '2024-05-01');
  is('time("10:30:00")', '10:30');
  is('time("10:30:15.5")', '10:30:15.500');
  is('time("10:30:00+02:00")', '10:30:00+02:00');
  is('time("10:30:00@Europe/Berlin")', '10:30:00@Europe/Berlin');
  is('date and time("2024-05-01T10:30:00")', '2024-05-01T10:30:00');
  is('date and time("2024-05-01T10:30:00Z")', '2024-05-01T10:30:00Z');
  is('date and time("2024-05-01T10:30:00@Europe/Berlin")', '2024-05-01T10:30:00+02:00');
  is('string(date and time("2024-05-01T10:30:00@Europe/Berlin"))', '2024-05-01T10:30:00@Europe/Berlin');
  is('duration("P1DT2H30M")', 'P1DT2H30M');
  is('duration("PT36H")', 'P1DT12H');
  is('duration("P14M")', 'P1Y2M');
  is('duration("-PT5M")', '-PT5M');
  is('date("2021-02-30")', null);
  is('@"not a date"', null);
});

describe('temporal arithmetic follows java.time', () => {
  is('date("2020-01-31") + duration("P1M")', '2020-02-29');
  is('date("2020-02-29") + duration("P1Y")', '2021-02-28');
  is('date("2024-05-01") - date("2024-04-01")', 'P30D');
  is('date("2024-05-01") + duration("PT25H")', '2024-05-02');
  is('time("23:00:00") + duration("PT2H")', '01:00');
  // A days-time duration is exact time (the instant moves 24 h); a years-months one moves the calendar.
  is('date and time("2024-03-30T12:00:00@Europe/Berlin") + duration("P1D")', '2024-03-31T13:00:00+02:00');
  is('date and time("2024-03-29T12:00:00@Europe/Berlin") + duration("P1M")', '2024-04-29T12:00:00+02:00');
  is('date and time("2024-03-31T02:30:00@Europe/Berlin")', '2024-03-31T03:30:00+02:00');
  is('date and time("2024-05-01T10:00:00Z") - date and time("2024-05-01T10:00:00+02:00")', 'PT2H');
  is('time("10:00:00Z") - time("12:00:00Z")', 'PT2H');
  is('years and months duration(date("2011-12-22"), date("2013-08-24"))', 'P1Y8M');
  is('duration("P1Y") * 2', 'P2Y');
  is('duration("PT1H") / duration("PT40M")', 1);
  is('duration("P1D") > duration("PT23H")', true);
  is('date("2024-05-01") < date("2024-05-02")', true);
  isNullWarned('date("2024-05-01") < time("10:00:00")', FeelWarningType.NotComparable);
});

describe('an offset date-time equals only the same offset and zone (java.time equals), but orders by instant', () => {
  is('@"2024-05-01T10:00:00+02:00" = @"2024-05-01T08:00:00Z"', false);
  is('@"2024-05-01T10:00:00+02:00" > @"2024-05-01T07:59:59Z"', true);
});

describe('temporal properties', () => {
  is('date("2024-05-01").weekday', 3);
  is('date("2024-05-01").month', 5);
  is('@"2024-05-01T10:30:00@Europe/Berlin".timezone', 'Europe/Berlin');
  is('@"2024-05-01T10:30:00+02:00".time offset', 'PT2H');
  is('@"2024-05-01T10:30:00+02:00".timezone', null);
  is('duration("P2DT3H").hours', 3);
  is('duration("P1Y5M").months', 5);
  isNullWarned('date("2024-05-01").hour', FeelWarningType.NoPropertyFound);
});

describe('now() and today() read the injected clock, in the injected zone', () => {
  is('now()', '2024-01-15T10:30:00Z');
  is('today()', '2024-01-15');
  test('now() in a zone is that zone’s local time', () => {
    expect(plain(feel('string(now())', {}, { zone: 'Asia/Tokyo' }))).toBe('2024-01-15T19:30:00@Asia/Tokyo');
  });
  test('today() in a zone east of UTC may already be tomorrow', () => {
    expect(plain(feel('today()', {}, { now: () => Date.UTC(2024, 0, 15, 23, 0), zone: 'Europe/Berlin' }))).toBe(
      '2024-01-16',
    );
  });
  test('an unknown zone is a failure, not UTC', () => {
    expect(feel('now()', {}, { zone: 'Mars/Olympus' }).ok).toBe(false);
  });
});

describe('calendar built-ins', () => {
  is('day of week(date("2024-05-01"))', 'Wednesday');
  is('month of year(date("2024-05-01"))', 'May');
  is('day of year(date("2024-02-01"))', 32);
  is('week of year(date("2021-01-03"))', 53);
  is('last day of month(date("2024-02-10"))', '2024-02-29');
  is('date and time(date("2024-05-01"), time("10:00:00@Europe/Berlin"))', '2024-05-01T10:00:00+02:00');
  is('date and time(date and time("2024-05-01T10:00:00Z"), "Europe/Berlin")', '2024-05-01T12:00:00+02:00');
  is('date and time(date: date and time("2024-05-01T10:00:00"), timezone: "Asia/Tokyo")', '2024-05-01T10:00:00+09:00');
});
