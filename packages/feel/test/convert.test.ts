import { describe, expect, test } from 'vitest';
import { Decimal, type FeelContext, FeelConversionError, FeelDateTime, fromFeel, toFeel } from '../src/index.js';
import { feel, plain } from './helpers.js';

describe('toFeel reads plain data as FEEL values', () => {
  test('a safe integer stays a JS number (the fast path)', () => {
    expect(toFeel(42)).toBe(42);
  });
  test('a fraction is the decimal of its text: 0.1 is exactly 0.1', () => {
    const value = toFeel(0.1);
    expect(value).toBeInstanceOf(Decimal);
    expect(String(value)).toBe('0.1');
  });
  test('a bigint is exact', () => {
    expect(String(toFeel(12345678901234567890123n))).toBe('12345678901234567890123');
  });
  test('a string that looks like a date stays a string, as in Zeebe', () => {
    expect(toFeel('2024-05-01')).toBe('2024-05-01');
  });
  test('a Date is a date-time in UTC', () => {
    const value = toFeel(new Date(Date.UTC(2024, 4, 1, 10, 30)));
    expect(value).toBeInstanceOf(FeelDateTime);
    expect(String(value)).toBe('2024-05-01T10:30:00Z');
  });
  test('objects are contexts, arrays lists; undefined entries are absent', () => {
    const value = toFeel({ a: [1, 'x'], b: undefined }) as FeelContext;
    expect(value.keys()).toEqual(['a']);
  });
  test.each([
    ['a function', () => 1, '$'],
    ['NaN', Number.NaN, '$'],
    ['a class instance', new Map(), '$'],
    ['a nested symbol', { order: { items: [Symbol('x')] } }, '$.order.items[0]'],
  ])('%s is refused, naming the path', (_, value, path) => {
    expect(() => toFeel(value)).toThrow(FeelConversionError);
    expect(() => toFeel(value)).toThrow(path);
  });
  test('data that refers to itself is refused', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toFeel(cyclic)).toThrow(/refers to itself/);
  });
});

describe('fromFeel writes a result as Zeebe writes it into a variable', () => {
  const cases: [string, unknown][] = [
    ['1 + 1', 2],
    ['9007199254740993', 9007199254740993n],
    ['10 / 4', 2.5],
    ['1.50 * 2', 3],
    ['1 / 0.001', 1000],
    ['{b: 1, a: [true, null, "x"]}', { b: 1, a: [true, null, 'x'] }],
    ['@"2024-05-01"', '2024-05-01'],
    ['@"10:30:00"', '10:30'],
    ['@"10:30:00+02:00"', '10:30:00+02:00'],
    ['@"2024-05-01T10:30:00"', '2024-05-01T10:30:00'],
    ['@"2024-05-01T10:30:00@Europe/Paris"', '2024-05-01T10:30:00+02:00'],
    ['@"P1DT2H"', 'P1DT2H'],
    ['@"P1Y2M"', 'P1Y2M'],
  ];
  for (const [source, expected] of cases) {
    test(`${source} is written as ${JSON.stringify(expected, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`, () => {
      expect(plain(feel(source))).toEqual(expected);
    });
  }
  test('a function is not data', () => {
    const result = feel('function(x) x');
    expect(() => fromFeel(result.ok ? result.value : null)).toThrow(FeelConversionError);
  });
  test('a range is not data', () => {
    const result = feel('get or else([1..2], 0)');
    expect(() => fromFeel(result.ok ? result.value : null)).toThrow(/range is not data/);
  });
  test('a key that is special to JS objects is an ordinary key', () => {
    const value = plain(feel('{"__proto__": 1}')) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe(1);
  });
});
