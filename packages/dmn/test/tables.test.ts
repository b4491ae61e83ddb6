import { fromFeel } from '@thresher/feel';
import { describe, expect, it } from 'vitest';
import { evaluateDecision, parseDmn } from '../src/index.js';
import { definitions, type TableSpec, table } from './models.js';

/** The decision's value as plain data, or the failure's message prefixed `failed: `. */
function decide(spec: TableSpec, variables: Record<string, unknown>): unknown {
  const outcome = evaluateDecision(parseDmn(definitions(table(spec))), 'd', variables);
  return outcome.ok ? fromFeel(outcome.value) : `failed: ${outcome.failure.message}`;
}

const grades = (hitPolicy: string, aggregation?: string): TableSpec => ({
  hitPolicy,
  ...(aggregation ? { aggregation } : {}),
  inputs: ['score'],
  outputs: [{ name: 'grade', values: '"A","B","C"' }],
  rules: [
    ['>= 50', '"C"'],
    ['>= 70', '"B"'],
    ['>= 90', '"A"'],
  ],
});

describe('hit policies', () => {
  it('UNIQUE gives the one match and fails naming both rules when two match', () => {
    const spec: TableSpec = {
      inputs: ['x'],
      outputs: ['y'],
      rules: [
        ['< 5', '"low"'],
        ['>= 3', '"high"'],
      ],
    };
    expect(decide(spec, { x: 1 })).toBe('low');
    expect(decide(spec, { x: 4 })).toMatch(/failed: .*UNIQUE.*'d-r1'.*'d-r2'/);
  });

  it('ANY gives the shared output and fails when the matches differ', () => {
    const same: TableSpec = {
      hitPolicy: 'ANY',
      inputs: ['x'],
      outputs: ['y'],
      rules: [
        ['< 5', '1'],
        ['< 9', '1'],
      ],
    };
    expect(decide(same, { x: 1 })).toBe(1);
    const differ: TableSpec = {
      ...same,
      rules: [
        ['< 5', '1'],
        ['< 9', '2'],
      ],
    };
    expect(decide(differ, { x: 1 })).toMatch(/failed: .*ANY.*different outputs/);
  });

  it('PRIORITY takes the match whose output comes first among the output values', () => {
    expect(decide(grades('PRIORITY'), { score: 95 })).toBe('A');
    expect(decide(grades('PRIORITY'), { score: 75 })).toBe('B');
  });

  it('FIRST takes the first match in rule order', () => {
    expect(decide(grades('FIRST'), { score: 95 })).toBe('C');
  });

  it('RULE ORDER lists the matches in rule order, OUTPUT ORDER by output values', () => {
    expect(decide(grades('RULE ORDER'), { score: 95 })).toEqual(['C', 'B', 'A']);
    expect(decide(grades('OUTPUT ORDER'), { score: 95 })).toEqual(['A', 'B', 'C']);
  });

  it('COLLECT lists the matches, and SUM, MIN, MAX, COUNT aggregate them', () => {
    const spec: TableSpec = {
      hitPolicy: 'COLLECT',
      inputs: ['x'],
      outputs: ['y'],
      rules: [
        ['> 0', '10'],
        ['> 1', '20'],
        ['> 2', '5'],
      ],
    };
    expect(decide(spec, { x: 3 })).toEqual([10, 20, 5]);
    expect(decide({ ...spec, aggregation: 'SUM' }, { x: 3 })).toBe(35);
    expect(decide({ ...spec, aggregation: 'MIN' }, { x: 3 })).toBe(5);
    expect(decide({ ...spec, aggregation: 'MAX' }, { x: 3 })).toBe(20);
    expect(decide({ ...spec, aggregation: 'COUNT' }, { x: 2 })).toBe(2);
  });

  it('no match is null for a single hit, [] for a collection, and the default output when declared', () => {
    expect(decide(grades('UNIQUE'), { score: 10 })).toBeNull();
    expect(decide(grades('COLLECT'), { score: 10 })).toEqual([]);
    const withDefault = (hitPolicy: string, aggregation?: string): TableSpec => ({
      hitPolicy,
      ...(aggregation ? { aggregation } : {}),
      inputs: ['x'],
      outputs: [{ name: 'y', default: '0' }],
      rules: [['> 10', '5']],
    });
    expect(decide(withDefault('UNIQUE'), { x: 1 })).toBe(0);
    expect(decide(withDefault('COLLECT', 'MAX'), { x: 1 })).toBe(0);
    expect(decide(withDefault('COLLECT'), { x: 1 })).toEqual([0]);
  });
});

describe('outputs and what is recorded', () => {
  it('several outputs give a context by output name; the record names the inputs and the matched rule', () => {
    const xml = definitions(
      table({
        inputs: ['amount', 'region'],
        outputs: ['rate', 'label'],
        rules: [
          ['< 100', '-', '0.1', '"small"'],
          ['>= 100', '"EU"', '0.2', '"big EU"'],
        ],
      }),
    );
    const outcome = evaluateDecision(parseDmn(xml), 'd', { amount: 150, region: 'EU' });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(fromFeel(outcome.value)).toEqual({ rate: 0.2, label: 'big EU' });
    const [record] = outcome.evaluated;
    expect(record).toMatchObject({
      decisionId: 'd',
      decisionType: 'decisionTable',
      inputs: [
        { id: 'd-in0', value: 150 },
        { id: 'd-in1', value: 'EU' },
      ],
      matchedRules: [{ ruleId: 'd-r2', ruleIndex: 2 }],
    });
  });
});

describe('unary tests', () => {
  const classify = (entry: string, value: unknown) =>
    decide({ inputs: ['x'], outputs: ['y'], rules: [[entry, 'true']] }, { x: value });

  it.each([
    ['-', 'anything', true],
    ['"a","b"', 'b', true],
    ['"a","b"', 'c', null],
    ['[1..10]', 10, true],
    ['(1..10)', 10, null],
    ['not("x")', 'y', true],
    ['not("x")', 'x', null],
    ['< 5', 4, true],
    ['? > 3', 4, true],
    ['? > 3', 2, null],
  ])('%s on %j matches: %s', (entry, value, expected) => {
    expect(classify(entry, value)).toBe(expected);
  });

  it('an input outside its input values fails naming the input', () => {
    const spec: TableSpec = {
      inputs: [{ expression: 'color', values: '"red","green"' }],
      outputs: ['y'],
      rules: [['-', '1']],
    };
    expect(decide(spec, { color: 'red' })).toBe(1);
    expect(decide(spec, { color: 'blue' })).toMatch(/failed: .*'color' is "blue", not one of its input values/);
  });
});
