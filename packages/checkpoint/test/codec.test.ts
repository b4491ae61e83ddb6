import { describe, expect, it } from 'vitest';
import {
  canonicalBytes,
  canonicalJson,
  decodeParsed,
  decodeValue,
  encodeValue,
  fromCanonicalBytes,
  MAX_NESTING_DEPTH,
} from '../src/codec.js';
import { openCheckpoint } from '../src/document.js';
import { CorruptCheckpointError, UnencodableValueError } from '../src/errors.js';

const roundTrip = (value: unknown) => decodeValue(JSON.parse(JSON.stringify(encodeValue(value))));

/** The refusal `encodeValue` throws for `value` (fails the test when it throws none). */
function refusalOf(value: unknown, root?: string): UnencodableValueError {
  try {
    encodeValue(value, root);
  } catch (error) {
    expect(error).toBeInstanceOf(UnencodableValueError);
    return error as UnencodableValueError;
  }
  throw new Error('expected an UnencodableValueError');
}

/** Assert a refusal: its class, its stable code, its exact path (also in the message), its reason. */
function expectRefusal(value: unknown, path: string, reason?: RegExp | string, root?: string): UnencodableValueError {
  const error = refusalOf(value, root);
  expect(error.code).toBe('THRESHER_UNENCODABLE_VALUE');
  expect(error.path).toBe(path);
  expect(error.message).toContain(`cannot store the value at ${path}: `);
  if (reason !== undefined) expect(error.message).toMatch(reason);
  return error;
}

/** A decoding error: a `TypeError` whose message names the tag. */
function expectDecodeError(encoded: unknown, tag: string): void {
  let thrown: unknown;
  try {
    decodeValue(encoded);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(TypeError);
  expect((thrown as TypeError).message).toContain(tag);
}

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

  it('should keep the empty slots of a pre-sized staging array apart from undefined elements', () => {
    const staging = new Array(5);
    staging[0] = 'first';
    staging[2] = undefined;
    const back = fromCanonicalBytes(canonicalBytes({ staging })) as { staging: unknown[] };
    expect(back.staging).toHaveLength(5);
    expect(Object.keys(back.staging)).toEqual(['0', '2']);
    expect(back.staging[2]).toBeUndefined();
    expect(1 in back.staging || 3 in back.staging || 4 in back.staging).toBe(false);
    expect(canonicalJson(staging)).toBe('["first",{"$t":"hole"},{"$t":"undef"},{"$t":"hole"},{"$t":"hole"}]');
  });

  it('should keep the stable tag names of documents already written', () => {
    expect(
      canonicalJson([undefined, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 5n, new Date(0)]),
    ).toBe(
      '[{"$t":"undef"},{"$t":"nan"},{"$t":"inf"},{"$t":"-inf"},{"$t":"-0"},{"$t":"big","v":"5"},{"$t":"date","v":"1970-01-01T00:00:00.000Z"}]',
    );
    expect(canonicalJson({ b: new Uint8Array([1]), o: { $t: 1 } })).toBe(
      '{"b":{"$t":"bin","v":"AQ=="},"o":{"$t":"obj","v":{"$t":1}}}',
    );
  });

  it('should keep a user object that looks like a tag as data', () => {
    const value = { $t: 'date', v: 'not a date' };
    expect(roundTrip(value)).toEqual(value);
    expect(roundTrip({ $t: 'hole' })).toEqual({ $t: 'hole' });
    expect(roundTrip([{ $t: 'hole' }])).toEqual([{ $t: 'hole' }]);
  });

  it('should give equal text for equal values whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
  });

  it.each([
    ['a function', { order: { total: () => 1 } }, '$.order.total'],
    ['a symbol', { items: [1, Symbol('x')] }, '$.items[1]'],
    ['a class instance', { when: new Map() }, '$.when'],
  ])('should refuse %s naming its path', (_, value, path) => {
    expectRefusal(value, path);
  });

  it('should refuse a cycle naming where it closes', () => {
    const order: Record<string, unknown> = { id: 1 };
    order.self = order;
    expectRefusal(order, '$.self', /cycle/);
    const list: unknown[] = [1];
    list.push({ back: list });
    expectRefusal({ list }, '$.list[1].back', /cycle/);
  });

  it('should accept the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(roundTrip({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
    expect(roundTrip([shared, [shared]])).toEqual([{ x: 1 }, [{ x: 1 }]]);
  });

  // Rule 1: binary keeps its type; other binary views are refused by name.
  it('should round-trip a Buffer as a Buffer and a Uint8Array as a Uint8Array, views included', () => {
    const backing = new Uint8Array([9, 8, 7, 6, 5]);
    const value = { buf: Buffer.from([1, 2, 3]), bin: new Uint8Array([4, 5]), view: backing.subarray(1, 3) };
    const back = fromCanonicalBytes(canonicalBytes(value)) as typeof value;
    expect(Buffer.isBuffer(back.buf)).toBe(true);
    expect([...back.buf]).toEqual([1, 2, 3]);
    expect(Buffer.isBuffer(back.bin)).toBe(false);
    expect(Object.getPrototypeOf(back.bin)).toBe(Uint8Array.prototype);
    expect([...back.bin]).toEqual([4, 5]);
    expect([...back.view]).toEqual([8, 7]);
    expect(canonicalJson(value.buf)).toBe('{"$t":"buf","v":"AQID"}');
    expect(canonicalJson(new Uint8Array([1, 2, 3]))).toBe('{"$t":"bin","v":"AQID"}');
  });

  it.each([
    ['Float64Array', new Float64Array([1.5])],
    ['Uint16Array', new Uint16Array([1])],
    ['Uint8ClampedArray', new Uint8ClampedArray([1])],
    ['BigInt64Array', new BigInt64Array([1n])],
    ['DataView', new DataView(new ArrayBuffer(2))],
    ['ArrayBuffer', new ArrayBuffer(2)],
    ['SharedArrayBuffer', new SharedArrayBuffer(2)],
  ])('should refuse a %s naming its type and path', (name, value) => {
    expectRefusal({ samples: [value] }, '$.samples[0]', new RegExp(`type ${name} has no codec`));
  });

  // Rule 2: nothing an object holds is dropped silently.
  it('should refuse symbol-keyed and non-enumerable own properties naming them', () => {
    expectRefusal({ a: { x: 1, [Symbol('secret')]: 2 } }, '$.a[Symbol(secret)]', /symbol-keyed property/);
    const list = [1, 2];
    Object.defineProperty(list, Symbol.for('tag'), { value: 1, enumerable: true });
    expectRefusal({ list }, '$.list[Symbol(tag)]', /symbol-keyed property/);
    const hidden = { shown: 1 };
    Object.defineProperty(hidden, 'hidden', { value: 2, enumerable: false });
    expectRefusal({ a: hidden }, '$.a.hidden', /non-enumerable property/);
  });

  it('should store what a getter returns as data, and name a getter that throws', () => {
    let reads = 0;
    const order = {
      id: 7,
      get total() {
        reads++;
        return 42;
      },
    };
    const back = fromCanonicalBytes(canonicalBytes({ order })) as { order: Record<string, unknown> };
    expect(back.order).toEqual({ id: 7, total: 42 });
    expect(Object.getOwnPropertyDescriptor(back.order, 'total')).toMatchObject({ value: 42, enumerable: true });
    expect(reads).toBe(1);

    const broken = {
      get total(): number {
        throw new RangeError('no total yet');
      },
    };
    const error = expectRefusal({ order: broken }, '$.order.total', /reading the value threw RangeError: no total yet/);
    expect(error.cause).toBeInstanceOf(RangeError);
  });

  // Rule 3: `__proto__` is data, never a prototype.
  it('should round-trip an own __proto__ key as data without ever setting a prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true,"__proto__":[1]},"a":1}') as object;
    const text = canonicalJson(value);
    expect(text).toBe('{"__proto__":{"__proto__":[1],"polluted":true},"a":1}');
    const encoded = encodeValue(value) as Record<string, unknown>;
    expect(Object.hasOwn(encoded, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(encoded)).toBe(Object.prototype);

    const back = fromCanonicalBytes(canonicalBytes(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
    const inner = Object.getOwnPropertyDescriptor(back, '__proto__')?.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect(inner.polluted).toBe(true);
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')?.value).toEqual([1]);
    expect(back.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(canonicalJson(back)).toBe(text);

    // A hand-made document, also inside an `obj` tag, cannot pick a prototype.
    const crafted = decodeValue(
      JSON.parse('{"x":{"$t":"obj","v":{"$t":1,"__proto__":{"isAdmin":true}}},"__proto__":{"isAdmin":true}}'),
    ) as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(crafted)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(crafted.x)).toBe(Object.prototype);
    expect(crafted.isAdmin).toBeUndefined();
    expect(crafted.x?.isAdmin).toBeUndefined();
  });

  // Rule 4: Dates exactly; other classes are refused by name; null-prototype objects are plain data.
  it('should round-trip an invalid Date as an invalid Date', () => {
    const back = roundTrip({ when: new Date('not a date') }) as { when: Date };
    expect(back.when).toBeInstanceOf(Date);
    expect(Number.isNaN(back.when.getTime())).toBe(true);
    expect(canonicalJson(new Date(Number.NaN))).toBe('{"$t":"date","v":"invalid"}');
  });

  class Money {
    constructor(readonly cents: number) {}
  }
  class StampedDate extends Date {}
  class Items extends Array<number> {}
  it.each([
    ['Map', new Map([[1, 2]])],
    ['Set', new Set([1])],
    ['RegExp', /x/g],
    ['Error', new Error('boom')],
    ['TypeError', new TypeError('boom')],
    ['Money', new Money(5)],
    ['Number', Object(1)],
    ['String', Object('text')],
    ['Boolean', Object(false)],
    ['Promise', Promise.resolve(1)],
    ['WeakMap', new WeakMap()],
    ['StampedDate', new StampedDate(0)],
    ['Items', Items.from([1])],
    ['Object (with a custom prototype)', Object.create(Object.create(null))],
  ])('should refuse a %s naming its type and path', (name, value) => {
    expectRefusal({ vars: { it: value } }, '$.vars.it', `type ${name} `);
  });

  it('should store an object with a null prototype as a plain object and decode it as an ordinary object', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.b = 2;
    bare.a = { n: 1 };
    expect(canonicalJson(bare)).toBe(canonicalJson({ a: { n: 1 }, b: 2 }));
    const back = roundTrip(bare) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(back).toEqual({ a: { n: 1 }, b: 2 });
  });

  // Rule 5: unambiguous paths.
  it('should write error paths like JavaScript, quoting keys that are not identifiers', () => {
    const fn = () => 0;
    expectRefusal({ a: { b: [0, 1, fn] } }, '$.a.b[2]');
    expectRefusal({ 'my key': [fn] }, '$["my key"][0]');
    expectRefusal({ 0: fn }, '$["0"]');
    expectRefusal({ 'a.b': fn }, '$["a.b"]');
    expectRefusal({ 'say "hi"': fn }, '$["say \\"hi\\""]');
    expectRefusal({ '': fn }, '$[""]');
    expectRefusal({ café: { $price: fn } }, '$.café.$price');
    expectRefusal({ x: fn }, '$checkpoint.x', undefined, '$checkpoint');
    expectRefusal(fn, '$');
  });

  // Rule 6: strict decoding.
  it.each([
    ['an unknown tag', { $t: 'map', v: [] }, '"map"'],
    ['a big whose v is a number', { $t: 'big', v: 5 }, '"big"'],
    ['a big that is not decimal', { $t: 'big', v: '0x10' }, '"big"'],
    ['a big without v', { $t: 'big' }, '"big"'],
    ['a bin that is not base64', { $t: 'bin', v: 'not base64!' }, '"bin"'],
    ['a buf without padding', { $t: 'buf', v: 'AQ' }, '"buf"'],
    ['a date that is not ISO', { $t: 'date', v: 'yesterday' }, '"date"'],
    ['a nan with a payload', { $t: 'nan', v: 1 }, '"nan"'],
    ['an undef with an extra key', { $t: 'undef', x: 1 }, '"undef"'],
    ['an obj whose v is an array', { $t: 'obj', v: [1] }, '"obj"'],
    ['an obj whose v has no $t', { $t: 'obj', v: { a: 1 } }, '"obj"'],
    ['a hole outside an array', { a: { $t: 'hole' } }, '"hole"'],
    ['a hole with a payload', [{ $t: 'hole', v: 1 }], '"hole"'],
    ['a $t that is not a string', { $t: 7 }, '"$t"'],
  ])('should refuse to decode %s with a TypeError naming the tag', (_, encoded, tag) => {
    expectDecodeError(encoded, tag);
  });

  it('should let callers report a malformed tag as a corrupt checkpoint', () => {
    let thrown: unknown;
    try {
      openCheckpoint(Buffer.from('{"$t":"big","v":5}'), { instanceId: 'i-1', seq: 3 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CorruptCheckpointError);
    expect((thrown as CorruptCheckpointError).cause).toBeInstanceOf(TypeError);
  });

  // Rule 7: depth is bounded by a documented limit, not by the call stack.
  it('should round-trip values nested 500 and MAX_NESTING_DEPTH deep, and refuse deeper ones', () => {
    const nest = (depth: number, wrap: (inner: unknown) => unknown) => {
      let value: unknown = 'core';
      for (let i = 0; i < depth; i++) value = wrap(value);
      return value;
    };
    const unwrap = (value: unknown, depth: number, step: (outer: unknown) => unknown) => {
      let current = value;
      for (let i = 0; i < depth; i++) current = step(current);
      return current;
    };
    expect(MAX_NESTING_DEPTH).toBe(1_000);
    for (const depth of [500, MAX_NESTING_DEPTH]) {
      const arrays = fromCanonicalBytes(canonicalBytes(nest(depth, (inner) => [inner])));
      expect(unwrap(arrays, depth, (outer) => (outer as unknown[])[0])).toBe('core');
      // Objects with a `$t` key are encoded two levels deep each: 20,000 levels of JSON.
      const tagged = fromCanonicalBytes(canonicalBytes(nest(depth, (inner) => ({ $t: inner }))));
      expect(unwrap(tagged, depth, (outer) => (outer as { $t: unknown }).$t)).toBe('core');
    }
    const error = refusalOf(nest(MAX_NESTING_DEPTH + 1, (inner) => ({ a: inner })));
    expect(error.code).toBe('THRESHER_UNENCODABLE_VALUE');
    expect(error.message).toMatch(/nested too deeply/);
    expect(error.path).toBe(`$${'.a'.repeat(MAX_NESTING_DEPTH)}`);

    const deepJson = `${'['.repeat(MAX_NESTING_DEPTH + 1)}${']'.repeat(MAX_NESTING_DEPTH + 1)}`;
    expect(() => decodeValue(JSON.parse(deepJson))).toThrow(TypeError);
    expect(() => decodeValue(JSON.parse(deepJson))).toThrow(/nested deeper/);
    expect(() => decodeParsed(JSON.parse(deepJson))).toThrow(/nested deeper/);
  });

  it('should hand back parsed JSON holding no tag as it is, and decode parsed JSON holding one, anywhere in it', () => {
    const plain = JSON.parse('{"a":[1,{"b":null,"__proto__":{"c":"d"}}],"e":"$t"}');
    expect(decodeParsed(plain)).toBe(plain);
    expect(Object.getPrototypeOf((decodeParsed(plain) as { a: [number, object] }).a[1])).toBe(Object.prototype);
    for (const text of ['{"a":[1,{"b":{"$t":"undef"}}]}', '[[{"$t":"nan"}]]', '{"$t":"-0"}']) {
      const parsed = JSON.parse(text);
      expect(decodeParsed(parsed)).not.toBe(parsed);
      expect(decodeParsed(JSON.parse(text))).toEqual(decodeValue(JSON.parse(text)));
    }
    expect(() => decodeParsed(JSON.parse('{"a":{"$t":"no-such-tag"}}'))).toThrow(TypeError);
  });

  // Rule 8: one pass over the value.
  it('should read every property once per encoding (a single pass)', () => {
    let reads = 0;
    const counted = {
      get value() {
        reads++;
        return [1, { x: 2 }];
      },
    };
    canonicalJson({ items: [counted, counted] });
    expect(reads).toBe(2);
    encodeValue(counted);
    expect(reads).toBe(3);
  });

  it('should encode a large checkpoint-sized value correctly', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}`, at: new Date(i), tags: ['a'] }));
    const back = fromCanonicalBytes(canonicalBytes({ rows })) as { rows: typeof rows };
    expect(back.rows).toHaveLength(20_000);
    expect(back.rows[19_999]).toEqual(rows[19_999]);
  });
});
