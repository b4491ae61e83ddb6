import { describe, expect, it } from 'vitest';
import { canonicalJson, decodeValue, encodeValue } from '../src/codec.js';
import { UnencodableValueError } from '../src/errors.js';

const roundTrip = (value: unknown) => decodeValue(JSON.parse(JSON.stringify(encodeValue(value))));

describe('value codec', () => {
  it('should round-trip what JSON cannot carry', () => {
    const holes = new Array(3);
    holes[1] = 'middle';
    const value = {
      missing: undefined,
      when: new Date('2026-11-29T10:00:00.000Z'),
      big: 12345678901234567890n,
      bytes: new Uint8Array([0, 1, 255]),
      negativeZero: -0,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      minusInf: Number.NEGATIVE_INFINITY,
      holes,
    };
    const back = roundTrip(value) as typeof value;
    expect(back).toEqual(value);
    expect(Object.hasOwn(back, 'missing')).toBe(true);
    expect(Object.is(back.negativeZero, -0)).toBe(true);
    expect(0 in back.holes).toBe(false);
    expect(back.holes).toHaveLength(3);
    expect(back.bytes).toBeInstanceOf(Uint8Array);
  });

  it('should keep a user object that looks like a tag as data', () => {
    const value = { $t: 'date', v: 'not a date' };
    expect(roundTrip(value)).toEqual(value);
  });

  it('should give equal text for equal values whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
  });

  it.each([
    ['a function', { order: { total: () => 1 } }, '$.order.total'],
    ['a symbol', { items: [1, Symbol('x')] }, '$.items[1]'],
    ['a class instance', { when: new Map() }, '$.when'],
  ])('should refuse %s naming its path', (_, value, path) => {
    expect(() => encodeValue(value)).toThrow(UnencodableValueError);
    expect(() => encodeValue(value)).toThrow(path);
  });

  it('should refuse a cycle naming where it closes', () => {
    const order: Record<string, unknown> = { id: 1 };
    order.self = order;
    expect(() => encodeValue(order)).toThrow(/\$\.self.*cycle/);
  });

  it('should accept the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(roundTrip({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });
});
