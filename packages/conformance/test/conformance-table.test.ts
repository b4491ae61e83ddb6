import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_CASES, caseTableProblems, REFERENCE_CASE_COUNT, REFERENCE_INVENTORY } from '../src/cases.js';
import { CONFORMANCE_BACKENDS, declaredCapabilities, renderConformanceTable } from '../src/table.js';

const CONFORMANCE_MD = new URL('../CONFORMANCE.md', import.meta.url);

describe('the conformance case table', () => {
  it('should have unique well-formed ids, ASCII text, and realise every reference case exactly once', () => {
    expect(caseTableProblems()).toEqual([]);
  });

  it('should count the 93 reference cases seed 002 gives, by group', () => {
    expect(
      Object.fromEntries(Object.entries(REFERENCE_INVENTORY).map(([group, names]) => [group, names.length])),
    ).toEqual({
      GET_TUPLE: 11,
      PUT: 18,
      PUT_WRITES: 10,
      LIST: 16,
      DELETE_THREAD: 5,
      COPY_THREAD: 8,
      DELETE_FOR_RUNS: 7,
      DELTA_CHANNEL_HISTORY: 10,
      PRUNE: 8,
    });
    expect(CONFORMANCE_CASES.filter(({ reference }) => reference !== null)).toHaveLength(REFERENCE_CASE_COUNT);
  });

  it('should report a table that realises a reference case twice or not at all', () => {
    const [first, ...rest] = CONFORMANCE_CASES;
    const problems = caseTableProblems([
      first!,
      { ...first!, id: 'TH-PUT-99', reference: first!.reference },
      ...rest.slice(1),
    ]);

    expect(problems).toContain(`reference case ${first!.reference} is realised by 2 cases (GET_TUPLE-01, TH-PUT-99)`);
    expect(problems).toContain(`reference case ${rest[0]!.reference} is realised by 0 cases ()`);
  });

  it('should list postgres among the backends, and settle a conditional capability only when told', () => {
    expect(Object.keys(CONFORMANCE_BACKENDS)).toEqual(['memory', 'sqlite', 'postgres']);
    expect(() => declaredCapabilities('postgres')).toThrow(/concurrentConnections/);
    expect(declaredCapabilities('postgres', { concurrentConnections: false })).toEqual({
      concurrentConnections: false,
      persistence: true,
      alterStoredBytes: true,
      upgradeSchema: true,
      deploymentsSeen: true,
    });
  });
});

describe('CONFORMANCE.md', () => {
  it('should be what the case table renders (run `pnpm conformance:table` after changing cases)', () => {
    expect(readFileSync(CONFORMANCE_MD, 'utf8')).toBe(renderConformanceTable());
  });

  it('should name every case with what it checks, the test that covers it and its backends', () => {
    const rendered = renderConformanceTable();

    for (const entry of CONFORMANCE_CASES) {
      const row = rendered.split('\n').find((line) => line.includes(`| \`${entry.spec}\` ${entry.id} `));
      expect(row, entry.id).toBeDefined();
      expect(row).toContain(entry.checks);
      if (entry.reference !== null) expect(row).toContain(`\`${entry.reference}\``);
      // Every backend checks deploymentsSeen; the memory store has none of the others.
      const requires = (entry.requires ?? []).filter((capability) => capability !== 'deploymentsSeen');
      const backends = requires.includes('concurrentConnections')
        ? 'sqlite, postgres (server only)'
        : requires.length > 0
          ? 'sqlite, postgres'
          : 'memory, sqlite, postgres';
      expect(row!.replace(/ +\|$/, '').endsWith(`| ${backends}`), `${entry.id} runs on ${backends}`).toBe(true);
    }
  });
});
