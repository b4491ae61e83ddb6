import { describe, expect, test } from 'vitest';
import { FeelWarningType } from '../src/index.js';
import { fails, feel, isNullWarned } from './helpers.js';

describe('feel-scala suppresses these failures: the value is null and a warning says why', () => {
  isNullWarned('missing', FeelWarningType.NoVariableFound);
  isNullWarned('order.missing', FeelWarningType.NoContextEntryFound, { order: { id: 1 } });
  isNullWarned('order.id', FeelWarningType.NoContextEntryFound, { order: null });
  isNullWarned('1 + "a"', FeelWarningType.InvalidType);
  isNullWarned('1 < "a"', FeelWarningType.NotComparable);
  isNullWarned('1 = "1"', FeelWarningType.NotComparable);
  isNullWarned('foo(1)', FeelWarningType.NoFunctionFound);
  isNullWarned('string length(1)', FeelWarningType.FunctionInvocationFailure);
  isNullWarned('number("x")', FeelWarningType.FunctionInvocationFailure);
  isNullWarned('not(x)', FeelWarningType.NoVariableFound);
  isNullWarned('5[1]', FeelWarningType.InvalidType);
  isNullWarned('for x in 5 return x', FeelWarningType.InvalidType);
  isNullWarned('< 5', FeelWarningType.NoVariableFound);
});

describe('feel-scala fails the whole evaluation here: Zeebe raises an incident', () => {
  fails('assert(x, x > 10)', /Assertion failure.*The condition is not fulfilled/, { x: 5 });
  fails('assert(x, x > 10, "x must exceed 10")', /x must exceed 10/, { x: 5 });
  fails('x.f(1)', /Expected context but found 'null'/);
  fails('{a: {b: 1}, r: a.f(1)}.r', /No function found with name 'f'/);
  fails('[1, x.f()]', /Expected context/);
  fails('?', /can only be used inside an unary-test expression/);
  fails('substring("abc", 10)', /StringIndexOutOfBoundsException/);
  fails('modulo(1, 0)', /ArithmeticException/);
  fails('[1] < [2]', /IllegalArgumentException/);
  fails('date and time(date and time("2024-05-01T10:00:00"), "Nowhere/Town")', /ZoneRulesException/);
});

describe('a failure carries the suppressed failures met before it', () => {
  test('the missing variable is reported beside the assertion', () => {
    const result = feel('assert(missing, missing != null)');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.warnings.map((w) => w.type)).toContain(FeelWarningType.NoVariableFound);
  });
  test('a value that is not data in the variables fails, naming where it is', () => {
    const result = feel('order.total', { order: { total: () => 1 } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.reason).toContain('order.total');
  });
  test('a value that is not data but never read does not matter', () => {
    expect(feel('order.id', { order: { id: 1, total: () => 1 } })).toMatchObject({ ok: true, value: 1 });
  });
});
