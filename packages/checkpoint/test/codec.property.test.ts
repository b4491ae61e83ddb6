import fc from 'fast-check';
import stringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalJson, decodeValue, encodeValue, fromCanonicalBytes } from '../src/codec.js';
import { checkEncodable } from '../src/encode-value.js';
import { UnencodableValueError } from '../src/errors.js';
import { plainCanonicalText } from '../src/plain-text.js';

// Property tests of the value codec. fast-check picks a fresh seed per run and prints it (with the
// shrunk counterexample) on failure; replay with `{ seed, path }` in the failing `fc.assert` call.
const RUNS = { numRuns: 300 };

/** Own data property, even for `__proto__` (plain assignment would set the prototype). */
function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Keys the codec must treat as plain data: tag look-alikes, prototype keys, unicode, integer-like. */
const keyArb = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom(
    '$t',
    'v',
    '__proto__',
    'constructor',
    'toJSON',
    'hasOwnProperty',
    'prototype',
    '',
    '0',
    '10',
    '2',
    '01',
    '4294967294',
    '4294967295',
    '-1',
    'my key',
    'é',
    'e\u0301',
    '😀',
    '\u0000',
    '\ud800',
    '\udc00x',
  ),
);

const numberArb = fc.oneof(
  fc.double(), // includes -0, NaN and ±Infinity
  fc.integer(),
  fc.constantFrom(-0, 0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE, 1e21, -1e-7),
);

const leafArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(undefined, null, true, false),
  numberArb,
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.bigInt(),
  fc.date(), // may be an invalid Date
  fc.constant(null).map(() => new Date(Number.NaN)),
  fc.uint8Array({ maxLength: 12 }),
  fc.uint8Array({ minLength: 2, maxLength: 12 }).map((bytes) => bytes.subarray(1)),
  fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes)),
  // A tag look-alike as data.
  fc.constantFrom('hole', 'undef', 'obj', 'big').map((kind) => ({ $t: kind, v: kind })),
);

/** Objects of up to 5 entries of `item`, keys from {@link keyArb}, with an ordinary or a null prototype. */
function objectOf(item: fc.Arbitrary<unknown>): fc.Arbitrary<object> {
  return fc.tuple(fc.array(fc.tuple(keyArb, item), { maxLength: 5 }), fc.boolean()).map(([entries, nullPrototype]) => {
    const out: object = nullPrototype ? Object.create(null) : {};
    for (const [key, value] of entries) define(out, key, value);
    return out;
  });
}

const { value: valueArb } = fc.letrec<{ value: unknown; array: unknown[]; sparse: unknown[]; object: object }>(
  (tie) => ({
    value: fc.oneof({ maxDepth: 4, depthSize: 'small' }, leafArb, tie('array'), tie('sparse'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 5 }),
    // Holes, also trailing ones: a pre-sized staging array keeps its empty slots.
    sparse: fc.sparseArray(tie('value'), { maxLength: 8 }),
    object: objectOf(tie('value')),
  }),
);

/** Plain JSON data, which the one-pass writer takes: keys of every kind, strings with lone surrogates, -0. */
const { json: jsonArb } = fc.letrec<{ json: unknown; list: unknown[]; record: object }>((tie) => ({
  json: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    fc.constantFrom(null, true, false),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string(),
    fc.string({ unit: 'binary' }),
    tie('list'),
    tie('record'),
  ),
  list: fc.array(tie('json'), { maxLength: 5 }),
  record: objectOf(tie('json')),
}));

const isPlainObject = (value: object) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Deep equality with `Object.is` semantics: -0 is not 0, NaN is NaN, a hole is not `undefined`, a Buffer
 * is not a Uint8Array, an invalid Date equals an invalid Date. `decoded` must be what the codec makes:
 * every object it holds has `Object.prototype` (a null-prototype original decodes as an ordinary object)
 * and only own enumerable data properties.
 */
function same(original: unknown, decoded: unknown): boolean {
  if (typeof original !== 'object' || original === null || typeof decoded !== 'object' || decoded === null) {
    return Object.is(original, decoded);
  }
  if (original instanceof Date) {
    return (
      Object.getPrototypeOf(decoded) === Date.prototype && Object.is(original.getTime(), (decoded as Date).getTime())
    );
  }
  if (original instanceof Uint8Array) {
    const proto = Buffer.isBuffer(original) ? Buffer.prototype : Uint8Array.prototype;
    return Object.getPrototypeOf(decoded) === proto && Buffer.compare(original, decoded as Uint8Array) === 0;
  }
  if (Array.isArray(original)) {
    if (!Array.isArray(decoded) || Object.getPrototypeOf(decoded) !== Array.prototype) return false;
    if (original.length !== decoded.length) return false;
    for (let i = 0; i < original.length; i++) {
      if (i in original !== i in decoded) return false;
      if (i in original && !same(original[i], decoded[i])) return false;
    }
    return true;
  }
  if (!isPlainObject(original) || Object.getPrototypeOf(decoded) !== Object.prototype) return false;
  const keys = Object.keys(original).sort();
  const decodedKeys = Reflect.ownKeys(decoded);
  if (decodedKeys.length !== keys.length) return false;
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(decoded, key);
    if (descriptor === undefined || !('value' in descriptor) || !descriptor.enumerable) return false;
    if (!same((original as Record<string, unknown>)[key], descriptor.value)) return false;
  }
  return true;
}

/** A deterministic shuffle (a small LCG) so a failing case replays from fast-check's seed alone. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The same value rebuilt with fresh objects whose keys are inserted in another order (and prototype flipped). */
function rebuilt(value: unknown, seed: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (Buffer.isBuffer(value)) return Buffer.from(value);
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (const i of shuffled([...value.keys()], seed)) if (i in value) out[i] = rebuilt(value[i], seed + i);
    return out;
  }
  const out: object = Object.getPrototypeOf(value) === null ? {} : Object.create(null);
  for (const key of shuffled(Object.keys(value), seed)) {
    define(out, key, rebuilt((value as Record<string, unknown>)[key], seed + key.length));
  }
  return out;
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

describe('value codec properties', () => {
  it('should round-trip every codec value through its canonical text', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(same(value, decodeValue(JSON.parse(canonicalJson(value))))).toBe(true);
        expect(same(value, fromCanonicalBytes(canonicalBytes(value)))).toBe(true);
      }),
      RUNS,
    );
  });

  it('should give identical canonical text whatever the key insertion order and prototype', () => {
    fc.assert(
      fc.property(valueArb, fc.integer(), (value, seed) => {
        expect(canonicalJson(rebuilt(value, seed))).toBe(canonicalJson(value));
      }),
      RUNS,
    );
  });

  it('should be idempotent: decoding and re-encoding gives the same canonical text', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(decodeValue(JSON.parse(text)))).toBe(text);
      }),
      RUNS,
    );
  });

  it('should write exactly what fast-json-stable-stringify writes for the encoding (stable bytes and digests)', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(canonicalJson(value)).toBe(stringify(encodeValue(value)));
      }),
      { numRuns: 1000 },
    );
  });

  it("should write the encoding's text for plain JSON data in one pass, or leave the value to the encoding", () => {
    let inOnePass = 0;
    fc.assert(
      fc.property(jsonArb, (value) => {
        const reference = stringify(encodeValue(value));
        const text = plainCanonicalText(value);
        if (text !== undefined) {
          inOnePass++;
          expect(text).toBe(reference);
        }
        expect(canonicalJson(value)).toBe(reference);
      }),
      { numRuns: 1000 },
    );
    // The property must have exercised the one-pass writer, not only the fallback.
    expect(inOnePass).toBeGreaterThan(500);
  });

  it('should leave to the encoding what it tags or refuses, and read a getter once in one pass', () => {
    for (const value of [-0, Number.NaN, undefined, 1n, new Date(0), new Array(1), { $t: 1 }, { a: () => 1 }]) {
      expect(plainCanonicalText(value)).toBeUndefined();
    }
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(plainCanonicalText(cycle)).toBeUndefined();
    expect(() => canonicalJson(cycle)).toThrow(UnencodableValueError);
    let reads = 0;
    const counted = {
      get total() {
        reads++;
        return 3;
      },
    };
    expect(canonicalJson(counted)).toBe('{"total":3}');
    expect(reads).toBe(1);
  });

  it("should write the sorting writer's text whether or not array-index keys take its path", () => {
    // "4294967294" is the largest array index, "4294967295" already an ordinary key; "01" is no index.
    const value = { b: 1, a: { '10': 1, '9': 2, x: 3 }, '4294967295': 4, '01': 5, $t: { '4294967294': 6, z: 7 } };
    expect(canonicalJson(value)).toBe(stringify(encodeValue(value)));
    const plain = { b: [1, { d: 2, c: 3 }], a: 'x', é: true, 'e\u0301': null };
    expect(canonicalJson(plain)).toBe(stringify(encodeValue(plain)));
  });

  it('should name any key unambiguously in a refusal path', () => {
    fc.assert(
      fc.property(keyArb, valueArb, (key, value) => {
        const holder = {};
        define(holder, key, [value, () => 0]);
        let error: unknown;
        try {
          encodeValue(holder);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(UnencodableValueError);
        const path = (error as UnencodableValueError).path;
        const segment = IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
        expect(path).toBe(`$${segment}[1]`);
        if (!IDENTIFIER.test(key)) expect(JSON.parse(path.slice(2, -4))).toBe(key);
      }),
      RUNS,
    );
  });

  it('should refuse in checkEncodable exactly what encodeValue refuses, at the same path', () => {
    const refusal = (run: () => unknown): string | undefined => {
      try {
        run();
        return undefined;
      } catch (error) {
        return error instanceof UnencodableValueError ? `${error.path}: ${error.message}` : String(error);
      }
    };
    fc.assert(
      fc.property(
        keyArb,
        valueArb,
        fc.constantFrom(undefined, () => 0, Symbol('s')),
        (key, value, bad) => {
          const holder = {};
          define(holder, key, bad === undefined ? value : [value, bad]);
          expect(refusal(() => checkEncodable(holder, '$v'))).toBe(refusal(() => encodeValue(holder, '$v')));
        },
      ),
      RUNS,
    );
  });
});
