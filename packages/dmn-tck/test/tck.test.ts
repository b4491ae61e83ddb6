import { join } from 'node:path';
import { FeelContext } from '@thresher/feel';
import { describe, expect, test } from 'vitest';
import { sameValue } from '../src/compare.js';
import { type CaseResult, folders, runFolder } from '../src/runner.js';

const TEST_CASES = join(import.meta.dirname, '../../../tck/TestCases');

function run(level: string): CaseResult[] {
  return folders(TEST_CASES, level).flatMap((folder) => runFolder(TEST_CASES, folder));
}

const passed = (rows: CaseResult[]) => rows.filter((row) => row.status === 'SUCCESS').length;

describe('the DMN TCK', () => {
  test('every compliance level 2 test case passes', () => {
    const rows = run('compliance-level-2');
    expect(rows).toHaveLength(116);
    expect(
      rows.filter((row) => row.status !== 'SUCCESS').map((row) => `${row.folder} ${row.id}: ${row.message}`),
    ).toEqual([]);
  });

  // The floor is the count this code reached (docs/feel-and-dmn.md, "DMN TCK"); a change that loses a test case fails here.
  test('compliance level 3 passes at least 2,974 of its 3,275 test cases', () => {
    const rows = run('compliance-level-3');
    expect(rows).toHaveLength(3275);
    expect(passed(rows)).toBeGreaterThanOrEqual(2974);
  });
});

describe('comparing a result with the TCK expected value', () => {
  test('a number cut to 8 or more places matches the 34-digit value it rounds from', () => {
    expect(sameValue(0.36787944117144233, 0.36787944)).toBe(true);
    expect(sameValue(0.3678795, 0.36787944)).toBe(false);
  });

  test('a short expected number must be equal', () => {
    expect(sameValue(2.4, 2)).toBe(false);
    expect(sameValue(2, 2)).toBe(true);
  });

  test('contexts compare by their entries and lists in order', () => {
    const a = FeelContext.of(new Map([['x', 1]]));
    expect(sameValue(a, FeelContext.of(new Map([['x', 1]])))).toBe(true);
    expect(sameValue(a, FeelContext.of(new Map([['x', 2]])))).toBe(false);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
  });

  test('an expected null is met only by null', () => {
    expect(sameValue(null, null)).toBe(true);
    expect(sameValue(0, null)).toBe(false);
  });
});
