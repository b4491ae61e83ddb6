import stringify from 'fast-json-stable-stringify';
import { UnencodableValueError } from './errors.js';

/**
 * The value codec: a JSON encoding that round-trips what JSON cannot (undefined, array holes, Dates,
 * bigints, binary, -0, NaN, ±Infinity) and refuses what it cannot store at capture time.
 *
 * Special values become `{ "$t": kind, "v": … }`; a user object that itself has a `$t` key is wrapped as
 * `{ "$t": "obj", "v": {…} }` so decoding never mistakes data for a tag.
 */
const TAG = '$t';

type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };

function tagged(kind: string, v?: Encoded): Encoded {
  return v === undefined ? { [TAG]: kind } : { [TAG]: kind, v };
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function encodeAt(value: unknown, path: string, seen: Set<object>): Encoded {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'undefined':
      return tagged('undef');
    case 'number':
      if (Number.isNaN(value)) return tagged('nan');
      if (value === Number.POSITIVE_INFINITY) return tagged('inf');
      if (value === Number.NEGATIVE_INFINITY) return tagged('-inf');
      if (Object.is(value, -0)) return tagged('-0');
      return value;
    case 'bigint':
      return tagged('big', value.toString());
    case 'function':
      throw new UnencodableValueError(path, 'functions cannot be stored');
    case 'symbol':
      throw new UnencodableValueError(path, 'symbols cannot be stored');
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) throw new UnencodableValueError(path, 'the value contains a cycle');
  if (object instanceof Date) {
    const time = object.getTime();
    return tagged('date', Number.isNaN(time) ? 'invalid' : object.toISOString());
  }
  if (object instanceof Uint8Array) return tagged('bin', Buffer.from(object).toString('base64'));
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      const out: Encoded[] = new Array(object.length);
      for (let i = 0; i < object.length; i++) {
        out[i] = i in object ? encodeAt(object[i], `${path}[${i}]`, seen) : tagged('hole');
      }
      return out;
    }
    if (!isPlainObject(object)) {
      const name = object.constructor?.name ?? 'unknown';
      throw new UnencodableValueError(path, `instances of ${name} have no codec; store plain data`);
    }
    const out: { [key: string]: Encoded } = {};
    for (const key of Object.keys(object)) {
      out[key] = encodeAt((object as Record<string, unknown>)[key], `${path}.${key}`, seen);
    }
    return TAG in out ? tagged('obj', out) : out;
  } finally {
    seen.delete(object);
  }
}

/** Encode a value into plain JSON data; throws `UnencodableValueError` naming the offending path. */
export function encodeValue(value: unknown, path = '$'): Encoded {
  return encodeAt(value, path, new Set());
}

/** Decode what `encodeValue` produced. */
export function decodeValue(encoded: unknown): unknown {
  if (encoded === null || typeof encoded !== 'object') return encoded;
  if (Array.isArray(encoded)) {
    const out: unknown[] = new Array(encoded.length);
    for (let i = 0; i < encoded.length; i++) {
      const item = encoded[i];
      if (isTag(item, 'hole')) continue;
      out[i] = decodeValue(item);
    }
    return out;
  }
  const record = encoded as Record<string, unknown>;
  if (typeof record[TAG] === 'string') return decodeTag(record[TAG] as string, record.v);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) out[key] = decodeValue(record[key]);
  return out;
}

function isTag(value: unknown, kind: string): boolean {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>)[TAG] === kind;
}

function decodeTag(kind: string, v: unknown): unknown {
  switch (kind) {
    case 'undef':
      return undefined;
    case 'nan':
      return Number.NaN;
    case 'inf':
      return Number.POSITIVE_INFINITY;
    case '-inf':
      return Number.NEGATIVE_INFINITY;
    case '-0':
      return -0;
    case 'big':
      return BigInt(v as string);
    case 'date':
      return new Date(v === 'invalid' ? Number.NaN : (v as string));
    case 'bin':
      return new Uint8Array(Buffer.from(v as string, 'base64'));
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v as Record<string, unknown>)) out[key] = decodeValue(item);
      return out;
    }
    case 'hole':
      return undefined;
    default:
      throw new TypeError(`unknown value tag "${kind}"`);
  }
}

/** Canonical text of a value: equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown, path?: string): string {
  return stringify(encodeValue(value, path));
}

/** Canonical bytes of a value (UTF-8 of `canonicalJson`). */
export function canonicalBytes(value: unknown, path?: string): Uint8Array {
  return Buffer.from(canonicalJson(value, path), 'utf8');
}

/** Decode canonical bytes back into a value. Throws `SyntaxError` on bytes that are not JSON. */
export function fromCanonicalBytes(bytes: Uint8Array): unknown {
  return decodeValue(JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')));
}
