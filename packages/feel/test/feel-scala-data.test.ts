import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FeelScalaDataError, loadFeelScalaSuites } from './data/feel-scala/load.js';

describe('feel-scala test data', () => {
  it('should load every suite file with at least 1,500 cases of valid shape', () => {
    const suites = loadFeelScalaSuites();
    const cases = suites.flatMap((suite) => suite.cases);

    expect(suites.length).toBeGreaterThan(20);
    expect(cases.length).toBeGreaterThanOrEqual(1500);
  });

  it('should name each file after its suite and point every case into that suite’s Scala file', () => {
    for (const suite of loadFeelScalaSuites()) {
      expect(suite.source.endsWith(`/${suite.suite}.scala`)).toBe(true);
      for (const c of suite.cases) {
        expect(c.source.startsWith(`${suite.source}:`)).toBe(true);
        expect(c.id.startsWith(`${suite.suite}:`)).toBe(true);
      }
    }
  });

  it('should hold both kinds, both harnesses and every expectation form', () => {
    const cases = loadFeelScalaSuites().flatMap((suite) => suite.cases);
    const forms = new Set(
      cases.map((c) => {
        const e = c.expect;
        if (e !== null && typeof e === 'object' && !Array.isArray(e)) return Object.keys(e).sort()[0];
        return 'value';
      }),
    );

    expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(['expression', 'unaryTests']));
    expect(new Set(cases.map((c) => c.harness))).toEqual(new Set(['api', 'interpreter']));
    for (const form of ['value', '$failure', '$null', '$result', '$anyResult', '$number', '$context']) {
      expect(forms).toContain(form);
    }
  });
});

describe('loadFeelScalaSuites', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const loadOne = (content: unknown) => {
    dir = mkdtempSync(join(tmpdir(), 'feel-scala-data-'));
    writeFileSync(join(dir, 'X.json'), JSON.stringify(content));
    return () => loadFeelScalaSuites(dir);
  };
  const suiteWith = (testCase: Record<string, unknown>) => ({
    suite: 'X',
    source: 'src/X.scala',
    cases: [
      {
        id: 'X:1',
        source: 'src/X.scala:1',
        test: 'x should y',
        harness: 'api',
        kind: 'expression',
        expression: '1',
        expect: { $number: '1' },
        ...testCase,
      },
    ],
  });

  it('should refuse a number written as a JSON number, naming the file and the place', () => {
    const load = loadOne(suiteWith({ expect: 1 }));

    expect(load).toThrow(FeelScalaDataError);
    expect(load).toThrow(/X\.json: cases\[0\]\.expect is a JSON number/);
  });

  it('should refuse an unknown tag inside a context', () => {
    const load = loadOne(suiteWith({ expect: { $context: [['a', { $range: '[1..2]' }]] } }));

    expect(load).toThrow(/cases\[0\]\.expect\.\$context\[0\]\[1\] has the unknown tag \$range/);
  });

  it('should refuse an input on an expression case', () => {
    const load = loadOne(suiteWith({ input: 'a' }));

    expect(load).toThrow(/has an input but is not unaryTests/);
  });

  it('should refuse a suppressed-failure expectation without failures', () => {
    const load = loadOne(suiteWith({ expect: { $null: true, suppressed: [] } }));

    expect(load).toThrow(/suppressed is not a non-empty list/);
  });

  it('should carry the stable code FEEL_SCALA_DATA_INVALID', () => {
    const load = loadOne(suiteWith({ kind: 'unary' }));

    expect(load).toThrow(expect.objectContaining({ code: 'FEEL_SCALA_DATA_INVALID' }));
  });
});
