import { describe, expect, it } from 'vitest';
import { EngineErrorCode, ExpressionError, ModelError } from '../src/common/errors.js';
import { evaluate, evaluateCondition, parseExpression, toFeelSource } from '../src/common/feel.js';

const expr = (source: string) => parseExpression(source, 'el');
const run = (source: string, variables: Record<string, unknown> = {}) => evaluate(expr(source), variables);

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

describe('parseExpression', () => {
  it('strips Zeebe\'s leading "=" and surrounding whitespace', () => {
    expect(parseExpression('  = total > 100 ', 'Flow_1')).toEqual({ source: 'total > 100', elementId: 'Flow_1' });
    expect(parseExpression('total > 100', 'Flow_1').source).toBe('total > 100');
    expect(toFeelSource('=x')).toBe('x');
  });

  it.each(['total >', 'foo(', ')', 'if a then b', '=', '   '])('throws a ModelError for "%s"', (source) => {
    let thrown: unknown;
    try {
      parseExpression(source, 'Flow_1');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ModelError);
    expect(thrown).toMatchObject({ code: 'THRESHER_MODEL', elementId: 'Flow_1' });
  });

  it('names where the syntax breaks', () => {
    expect(() => parseExpression('= total >', 'Flow_1')).toThrow(/Incomplete <Comparison> at character 7/);
  });

  it('parses without evaluating', () => {
    // `for` over a huge range would take a very long time to run; parsing it is instant.
    expect(parseExpression('= for i in 1..100000000000 return i', 'el').source).toContain('for i');
  });
});

describe('evaluate', () => {
  it('computes numbers, strings and booleans', () => {
    expect(run('a + 2 * b', { a: 1, b: 3 })).toBe(7);
    expect(run('"LBL-" + id', { id: 'A-1' })).toBe('LBL-A-1');
    expect(run('total > 100', { total: 120 })).toBe(true);
    expect(run('0.1 + 0.2')).toBeCloseTo(0.3);
  });

  it('yields null, not an error, for a missing variable', () => {
    expect(run('missing')).toBeNull();
    expect(run('missing + 1')).toBeNull();
    expect(run('order.missing', { order: {} })).toBeNull();
    expect(run('missing.deeper')).toBeNull();
  });

  it('yields null where FEEL defines null (type mismatches, invalid arguments)', () => {
    expect(run('1 + "a"')).toBeNull();
    expect(run('date("not a date")')).toBeNull();
    expect(run('10 / 0')).toBeNull();
  });

  it('returns contexts and lists as plain data', () => {
    const value = run('{ id: orderId, lines: [1, 2, { sku: "x" }] }', { orderId: 'A-1' });
    expect(value).toEqual({ id: 'A-1', lines: [1, 2, { sku: 'x' }] });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('turns temporal values into ISO-8601 strings', () => {
    expect(run('date("2024-05-01")')).toBe('2024-05-01');
    expect(run('time("10:30:00")')).toBe('10:30:00');
    expect(run('date and time("2024-05-01T10:30:00Z")')).toBe('2024-05-01T10:30:00Z');
    expect(run('duration("P1DT2H")')).toBe('P1DT2H');
    expect(run('{ due: date("2024-05-01") + duration("P1D") }')).toEqual({ due: '2024-05-02' });
    expect(run('[@"2024-05-01"]')).toEqual(['2024-05-01']);
  });

  it('reads JavaScript dates in variables as FEEL date-times', () => {
    expect(run('at + duration("PT1H")', { at: new Date('2024-05-01T10:00:00Z') })).toBe('2024-05-01T11:00:00Z');
  });

  it('reads backtick names (the camunda dialect)', () => {
    expect(run('`order id` + "!"', { 'order id': 'A-1' })).toBe('A-1!');
  });

  it('throws ExpressionError for a function that does not exist', () => {
    expect(expressionError(() => run('nosuch(1)')).message).toMatch(/nosuch\(1\)/);
  });

  it('throws ExpressionError for results that are not data', () => {
    expressionError(() => run('function(x) x + 1'));
    expressionError(() => run('[1..3]'));
    expressionError(() => run('10 ** 400'));
  });

  it('throws ExpressionError for an expression that does not parse', () => {
    expressionError(() => evaluate({ source: 'a +', elementId: 'el' }, {}));
  });
});

describe('evaluateCondition', () => {
  it('is true only for true', () => {
    expect(evaluateCondition(expr('= total > 100'), { total: 120 })).toBe(true);
    expect(evaluateCondition(expr('= total > 100'), { total: 80 })).toBe(false);
  });

  it('treats null as false, including a missing variable', () => {
    expect(evaluateCondition(expr('= null'), {})).toBe(false);
    expect(evaluateCondition(expr('= approved = true'), {})).toBe(false);
    expect(evaluateCondition(expr('= total > 100'), {})).toBe(false);
  });

  it.each([
    ['a string', '= "yes"'],
    ['a number', '= 1'],
    ['a list', '= [true]'],
    ['a context', '= { ok: true }'],
  ])('throws ExpressionError for %s', (_, source) => {
    expect(expressionError(() => evaluateCondition(expr(source), {})).message).toMatch(/a condition must be boolean/);
  });

  it('throws ExpressionError when evaluation fails', () => {
    expressionError(() => evaluateCondition(expr('= nosuch(1)'), {}));
  });
});
