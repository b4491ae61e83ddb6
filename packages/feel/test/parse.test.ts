import { describe, expect, test } from 'vitest';
import { FeelSyntaxError, parseExpression } from '../src/index.js';
import { is } from './helpers.js';

describe('what feel-scala does not parse is a syntax error with its span', () => {
  const cases: [string, RegExp][] = [
    ['1 +', /incomplete/],
    ['', /empty/],
    ['order id + 1', /backticks/],
    ['1e3', /not a FEEL number/],
    ['a = b = c', /chained/],
    ['+5', /prefix operator/],
    ['2 ^ 3', /not a FEEL operator/],
    ['{null: 1}.null', /reserved word/],
    ['function(x) external {java: {class: "A", method signature: "f()"}}', /external/],
    ['(function(x) x)(1)', /can be called/],
  ];
  for (const [source, reason] of cases) {
    test(`${JSON.stringify(source)} does not parse: ${reason.source}`, () => {
      expect(() => parseExpression(source)).toThrow(FeelSyntaxError);
      expect(() => parseExpression(source)).toThrow(reason);
    });
  }
  test('the error names the offending span', () => {
    try {
      parseExpression('if x then 1 els 2');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FeelSyntaxError);
      expect((error as FeelSyntaxError).from).toBeGreaterThan(0);
      expect((error as FeelSyntaxError).code).toBe('THRESHER_FEEL_SYNTAX');
    }
  });
});

describe('names', () => {
  is('`order id` + 1', 6, { 'order id': 5 });
  is('{a b: 1}.`a b`', 1);
  is('{"a-b": 1}.`a-b`', 1);
  is('{`a b`: 1, c: `a b` + 1}.c', 2);
  is('string join(["a", "b"])', 'ab');
  is('get or else(null, "x")', 'x');
  is('years and months duration(date("2020-01-01"), date("2021-03-01"))', 'P1Y2M');
  is('{a-b: 1, c: a-b}.c', null);
  is('and([true, false])', false);
  is('or(false, true)', true);
  is('true and or([true])', true);
});

describe('strings, comments and whitespace', () => {
  is('"a\\nb"', 'a\nb');
  is('"say \\"hi\\""', 'say "hi"');
  is('"\\u269D"', '\\u269D');
  is('1 // one\n + /* two */ 2', 3);
  is('1\u00a0+\u200b2', 3);
  is('"\u200b"', '\u200b');
});
