/**
 * The engine's FEEL: `@thresher/feel` (FEEL as Camunda 8 evaluates it; its own suites hold it to feel-scala's
 * 2,616 cases) behind the engine's rules — parsed once at compile time, a call that cannot be evaluated refused
 * at deploy, a failure an `ExpressionError` (an incident), a suppressed failure a null, results as Zeebe writes
 * them into variables, `now()` the step's clock reading.
 */
import { describe, expect, it } from 'vitest';
import { EngineErrorCode, ExpressionError, ModelError } from '../src/common/errors.js';
import { evaluate, evaluateCondition, parseExpression, toFeelSource } from '../src/common/feel.js';

const NOW = Date.UTC(2026, 11, 3, 10, 30, 0);
const expr = (source: string) => parseExpression(source, 'el');
const run = (source: string, variables: Record<string, unknown> = {}, now = NOW) =>
  evaluate(expr(source), variables, now);

function expressionError(action: () => unknown): ExpressionError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    const expressionError = error as ExpressionError;
    expect(expressionError.code).toBe(EngineErrorCode.Expression);
    expect(expressionError.elementId).toBe('el');
    return expressionError;
  }
  throw new Error('expected an ExpressionError');
}

function modelError(source: string): ModelError {
  try {
    parseExpression(source, 'Flow_1');
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'THRESHER_MODEL', elementId: 'Flow_1' });
    return error as ModelError;
  }
  throw new Error('expected a ModelError');
}

describe('parseExpression', () => {
  it('should strip Zeebe\'s leading "=" and surrounding whitespace', () => {
    expect(parseExpression('  = total > 100 ', 'Flow_1')).toEqual({ source: 'total > 100', elementId: 'Flow_1' });
    expect(parseExpression('total > 100', 'Flow_1').source).toBe('total > 100');
    expect(toFeelSource('=x')).toBe('x');
  });

  it.each(['total >', 'foo(', ')', 'if a then b', '=', '   ', 'a == 1'])(
    'should refuse "%s" with a ModelError',
    (source) => {
      modelError(source);
    },
  );

  it('should name where the syntax breaks', () => {
    expect(modelError('= total >').message).toMatch(/does not parse: .* at character \d+/);
  });

  it.each([
    ['nosuch(1)', /nosuch/],
    ['is defined()', /is defined/],
    ['string join(["a"], ",", "x")', /string join/],
    ['substring(string: "abc", begin: 2)', /substring/],
  ])('should refuse at deploy a call that cannot be evaluated: %s', (source, name) => {
    expect(modelError(source).message).toMatch(name);
  });

  it('should parse without evaluating', () => {
    // `for` over a huge range would take a very long time to run; parsing it is instant.
    expect(parseExpression('= for i in 1..100000000000 return i', 'el').source).toContain('for i');
  });
});

describe('evaluate', () => {
  it('should compute numbers as decimals, as Camunda does', () => {
    expect(run('a + 2 * b', { a: 1, b: 3 })).toBe(7);
    expect(run('0.1 + 0.2 = 0.3')).toBe(true);
    expect(run('0.1 + 0.2')).toBe(0.3);
    expect(run('9007199254740993 + 1')).toBe(9007199254740994n);
    expect(run('big + 1', { big: 9007199254740993n })).toBe(9007199254740994n);
    expect(run('decimal(1 / 3, 4)')).toBe(0.3333);
  });

  it('should compute strings and booleans', () => {
    expect(run('"LBL-" + id', { id: 'A-1' })).toBe('LBL-A-1');
    expect(run('total > 100', { total: 120 })).toBe(true);
  });

  it("should evaluate Camunda's extension functions", () => {
    expect(run('if is defined(x) then x else "default"', { x: 42 })).toBe(42);
    expect(run('if is defined(x) then x else "default"')).toBe('default');
    expect(run('get or else(x, "fallback")')).toBe('fallback');
    expect(run('trim("  a  ")')).toBe('a');
    expect(run('is blank(" ")')).toBe(true);
    expect(run('string join(["a", "b"], ", ", "[", "]")')).toBe('[a, b]');
    expect(run('last day of month(date("2022-10-01")) = date("2022-10-31")')).toBe(true);
    expect(run('context put({a: {b: 1}}, ["a", "c"], 2)')).toEqual({ a: { b: 1, c: 2 } });
  });

  it('should yield null, not an error, for a missing variable', () => {
    expect(run('missing')).toBeNull();
    expect(run('missing + 1')).toBeNull();
    expect(run('order.missing', { order: {} })).toBeNull();
    expect(run('missing.deeper')).toBeNull();
  });

  it('should yield null where feel-scala suppresses the failure (type mismatches, invalid arguments)', () => {
    expect(run('1 + "a"')).toBeNull();
    expect(run('date("not a date")')).toBeNull();
    expect(run('10 / 0')).toBeNull();
  });

  it('should return contexts and lists as plain data', () => {
    const value = run('{ id: orderId, lines: [1, 2, { sku: "x" }] }', { orderId: 'A-1' });
    expect(value).toEqual({ id: 'A-1', lines: [1, 2, { sku: 'x' }] });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('should turn temporal values into ISO-8601 strings, as Zeebe writes them', () => {
    expect(run('date("2024-05-01")')).toBe('2024-05-01');
    expect(run('time("10:30:00")')).toBe('10:30');
    expect(run('date and time("2024-05-01T10:30:00Z")')).toBe('2024-05-01T10:30:00Z');
    expect(run('duration("P1DT2H")')).toBe('P1DT2H');
    expect(run('years and months duration(date("2011-12-22"), date("2013-08-24"))')).toBe('P1Y8M');
    expect(run('{ due: date("2024-05-01") + duration("P1D") }')).toEqual({ due: '2024-05-02' });
    expect(run('[@"2024-05-01"]')).toEqual(['2024-05-01']);
  });

  it("should read now() and today() from the step's clock reading", () => {
    expect(run('now()')).toBe('2026-12-03T10:30:00Z');
    expect(run('today()')).toBe('2026-12-03');
    expect(run('today()', {}, Date.UTC(2030, 0, 1))).toBe('2030-01-01');
  });

  it('should read JavaScript dates in variables as FEEL date-times', () => {
    expect(run('at + duration("PT1H")', { at: new Date('2024-05-01T10:00:00Z') })).toBe('2024-05-01T11:00:00Z');
  });

  it('should read backtick names (the camunda dialect)', () => {
    expect(run('`order id` + "!"', { 'order id': 'A-1' })).toBe('A-1!');
  });

  it('should throw ExpressionError where feel-scala fails, with its reason', () => {
    expect(expressionError(() => run('assert(x, x > 0)', { x: -1 })).message).toMatch(/Assertion failure/);
    expressionError(() => run('substring("abc", 10)'));
  });

  it('should throw ExpressionError for results that are not data', () => {
    expressionError(() => run('function(x) x + 1'));
    // A context's function entries are not data: they are left out, as Zeebe leaves them out.
    expect(run('{ a: 1, f: function(x) x + 1 }')).toEqual({ a: 1 });
  });

  it('should throw ExpressionError for an expression that does not parse', () => {
    expressionError(() => evaluate({ source: 'a +', elementId: 'el' }, {}, NOW));
  });
});

describe('evaluateCondition', () => {
  it('should be true only for true', () => {
    expect(evaluateCondition(expr('= total > 100'), { total: 120 }, NOW)).toBe(true);
    expect(evaluateCondition(expr('= total > 100'), { total: 80 }, NOW)).toBe(false);
  });

  it('should treat null as false, including a missing variable', () => {
    expect(evaluateCondition(expr('= null'), {}, NOW)).toBe(false);
    expect(evaluateCondition(expr('= approved = true'), {}, NOW)).toBe(false);
    expect(evaluateCondition(expr('= total > 100'), {}, NOW)).toBe(false);
  });

  it.each([
    ['a string', '= "yes"'],
    ['a number', '= 1'],
    ['a list', '= [true]'],
    ['a context', '= { ok: true }'],
  ])('should throw ExpressionError for %s', (_, source) => {
    expect(expressionError(() => evaluateCondition(expr(source), {}, NOW)).message).toMatch(
      /a condition must be boolean/,
    );
  });
});
