import { describe, expect, test } from 'vitest';
import { evaluate, FeelSyntaxError, parseExpression, parseUnaryTests } from '../src/index.js';
import { is } from './helpers.js';

// DMN names its input data and decisions with spaces; a model passes them so they read without backticks.
describe('names declared by the caller read with their spaces, and only then', () => {
  const names = { 'Monthly Salary': 1, 'Applicant data': { 'Monthly income': 1 }, 'fn library': 1 };

  test('a declared name with spaces is one variable', () => {
    const result = evaluate(parseExpression('12 * Monthly Salary', { names }), { 'Monthly Salary': 1000 });
    expect(result.ok && String(result.value)).toBe('12000');
  });

  test('a path into a declared name reads its entries with spaces', () => {
    const result = evaluate(parseExpression('Applicant data.Monthly income + 1', { names }), {
      'Applicant data': { 'Monthly income': 41 },
    });
    expect(result.ok && String(result.value)).toBe('42');
  });

  test('unary tests read declared names too', () => {
    expect(() => parseUnaryTests('< Monthly Salary', { names })).not.toThrow();
  });

  test('without declared names, a name with spaces still needs backticks (as in Zeebe)', () => {
    expect(() => parseExpression('12 * Monthly Salary')).toThrow(FeelSyntaxError);
    expect(() => parseExpression('12 * Monthly Salary')).toThrow(/backticks/);
  });

  test('a function held as a context entry is called by its qualified name', () => {
    const library = evaluate(parseExpression('{sum: function(a, b) a + b}'), {});
    if (!library.ok) throw new Error(library.failure.message);
    const result = evaluate(parseExpression('fn library.sum(1, 2)', { names }), { 'fn library': library.value });
    expect(result.ok && String(result.value)).toBe('3');
  });
});

describe('range properties with spaces read without backticks', () => {
  test('`start included` and `end included` parse as property names', () => {
    expect(() => parseExpression('r.start included and r.end included')).not.toThrow();
  });
});

describe('24:00:00 in a date-time is the next day at midnight (java.time SMART resolving)', () => {
  is('string(date and time("2021-01-01T24:00:00"))', '2021-01-02T00:00:00');
  is('string(@"2021-01-01T24:00:00" + @"PT1S")', '2021-01-02T00:00:01');
  is('date and time("2021-01-01T24:00:01")', null);
});

describe('date-times beyond the years Temporal knows still resolve a zone', () => {
  is('string(date and time("999999999-12-31T23:59:59@Europe/Paris").year)', '999999999');
  is('date and time("-999999999-01-01T00:00:00@Europe/Paris").year', -999999999);
});
