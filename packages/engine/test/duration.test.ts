import { describe, expect, it } from 'vitest';
import { DurationError, parseDuration } from '../src/timers/duration.js';

describe('parseDuration', () => {
  const accepts = (text: string, ms: number) =>
    it(`should read ${text} as ${ms} ms`, () => {
      expect(parseDuration(text)).toBe(ms);
    });
  accepts('PT5S', 5_000);
  accepts('PT1.5S', 1_500);
  accepts('PT0,25S', 250);
  accepts('PT0.0004S', 0);
  accepts('PT0S', 0);
  accepts('PT1M', 60_000);
  accepts('PT90M', 5_400_000);
  accepts('PT1H30M', 5_400_000);
  accepts('PT0.5H', 1_800_000);
  accepts('P2D', 172_800_000);
  accepts('P1.5D', 129_600_000);
  accepts('P2DT3H', 183_600_000);
  accepts('P1DT1H1M1.001S', 90_061_001);
  accepts('P1W', 604_800_000);

  const refuses = (text: string, reason: RegExp) =>
    it(`should refuse ${JSON.stringify(text)}`, () => {
      let caught: unknown;
      try {
        parseDuration(text);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DurationError);
      expect((caught as DurationError).code).toBe('THRESHER_DURATION');
      expect((caught as Error).message).toMatch(reason);
    });
  refuses('', /empty/);
  refuses('P', /no component/);
  refuses('PT', /no component/);
  refuses('P1DT', /no component/);
  refuses('5 seconds', /starts with P/);
  refuses('-PT5S', /starts with P/);
  refuses('pt5s', /upper-case: PT5S/);
  refuses('P1Y', /years and months/);
  refuses('P1M', /years and months/);
  refuses('P1Y2M3D', /years and months/);
  refuses('PT5', /expected PnDTnHnMnS/);
  refuses('PT5S1M', /expected PnDTnHnMnS/);
  refuses('P1W2D', /expected PnDTnHnMnS/);
  refuses('PT.5S', /expected PnDTnHnMnS/);
  refuses('PT1.5H30M', /only the smallest component/);
  refuses('P1.5DT2H', /only the smallest component/);
});
