import { describe, expect, test } from 'vitest';
import { evaluateUnaryTests, parseUnaryTests } from '../src/index.js';
import { unary } from './helpers.js';

describe('unary tests, as a decision table tests an input entry', () => {
  unary('-', 5, true);
  unary('< 10', 5, true);
  unary('< 10', 10, false);
  unary('>= x', 7, true, { x: 7 });
  unary('[1..5]', 5, true);
  unary('[1..5)', 5, false);
  unary(']1..5]', 1, false);
  unary('"a","b"', 'b', true);
  unary('"a","b"', 'c', false);
  unary('not("a","b")', 'c', true);
  unary('not(< 3)', 5, true);
  unary('? > 2 and ? < 4', 3, true);
  unary('starts with(?, "ab")', 'abc', true);
  unary('[1, 2, 3]', 2, true);
  unary('true', true, true);
  unary('true', false, false);
  unary('x', 'a', true, { x: 'a' });
  unary('date("2024-05-01")', '2024-05-01', null);
  unary('< 10', 'a', null);
  unary('null', null, true);
  unary('< 10', null, null);
});

test('unary tests with no input value see none (feel-scala: a warning, and no match)', () => {
  const result = evaluateUnaryTests(parseUnaryTests('< 10'), undefined, {});
  expect(result).toMatchObject({ ok: true, value: null });
});
