import stringify from 'fast-json-stable-stringify';
import { UnencodableValueError } from './errors.js';

/**
 * The value codec: a JSON encoding that round-trips what JSON cannot, and refuses at capture time what it
 * cannot store faithfully, with an `UnencodableValueError` naming the variable path — never a silent `{}`.
 *
 * Encoding. JSON strings, booleans, null, finite numbers, plain arrays and plain objects are written as
 * themselves; everything else becomes a tagged object `{ "$t": kind, "v": … }`. The tag names are part of
 * every stored document and must never change:
 *
 * | kind    | value                                   | `v`                                           |
 * | ------- | --------------------------------------- | --------------------------------------------- |
 * | `undef` | `undefined` (own property or element)   | —                                             |
 * | `hole`  | an empty slot of a sparse array         | — (only valid as an array element)            |
 * | `nan`   | `NaN`                                   | —                                             |
 * | `inf`   | `Infinity`                              | —                                             |
 * | `-inf`  | `-Infinity`                             | —                                             |
 * | `-0`    | `-0`                                    | —                                             |
 * | `big`   | a bigint                                | its decimal text (`"-12"`)                    |
 * | `date`  | a `Date`                                | its `toISOString()`, or `"invalid"`           |
 * | `bin`   | a `Uint8Array` (decoded as `Uint8Array`)| its bytes in padded standard base64           |
 * | `buf`   | a Node `Buffer` (decoded as `Buffer`)   | its bytes in padded standard base64           |
 * | `obj`   | a plain object that has a `$t` key      | the object, so data is never read as a tag    |
 *
 * What is accepted, and the decisions behind it:
 * - Plain objects are those whose prototype is `Object.prototype` or `null`. Their own enumerable string
 *   keys are stored. An object with a `null` prototype is stored like any plain object and decodes as an
 *   ordinary `{}` object (its canonical text is the same as that of the equivalent `{}` object).
 * - Symbol-keyed and non-enumerable own properties are refused (naming the key), since `Object.keys` would
 *   drop them silently; an object literal never has them.
 * - Accessor properties (getters) are read: the value they return at capture time is stored, as a data
 *   property. A getter that throws is reported as an `UnencodableValueError` at its path (the thrown
 *   error is its `cause`).
 * - An own `__proto__` key (as `JSON.parse('{"__proto__":1}')` makes) is stored and decoded as an own data
 *   property; decoding never changes the prototype of anything.
 * - Arrays are those whose prototype is `Array.prototype`; holes are kept as holes (`hole`), an element
 *   that is `undefined` stays `undefined` (`undef`). Symbol-keyed properties on an array are refused;
 *   extra string-keyed properties on an array (like a RegExp match's `index`) are NOT detected and are not
 *   stored — finding them costs a key enumeration of every element on every checkpoint.
 * - `Date` (exactly, not a subclass), an invalid Date included; `Uint8Array` (exactly) and `Buffer`.
 *   Extra own properties of a Date or of binary data are not stored.
 * - Everything else is refused with its type named: functions, symbols, Map, Set, RegExp, Error, Promise,
 *   WeakMap, boxed primitives (`new Number(1)`), class instances, Date / Array / Uint8Array subclasses,
 *   objects from another realm, other typed arrays, DataView, ArrayBuffer and SharedArrayBuffer (copy
 *   the bytes into a `Uint8Array` — their element type and byte order are not recorded, so they get no
 *   tag of their own). A cycle is refused where it closes; the same object reached twice without a
 *   cycle is stored twice (and decodes as two objects).
 * - Nesting: values nested more than `MAX_NESTING_DEPTH` (1,000) arrays/objects deep are refused with
 *   "nested too deeply" (decoding refuses the same depth with a `TypeError`). Encoding and decoding are
 *   iterative; the limit keeps the canonical writer (fast-json-stable-stringify, which recurses, and
 *   whose encoding of a `$t`-keyed object takes two levels) far from the call stack's end.
 *
 * Paths in errors start at the root name given (`$` by default) and read like JavaScript: `$.a.b[2]`,
 * with keys that are not identifiers JSON-quoted so the path is unambiguous: `$["my key"]`, `$["0"]`.
 *
 * Decoding is strict: an unknown tag or a malformed tagged value (a `big` whose `v` is not canonical
 * decimal text, a `bin` that is not canonical base64, a `hole` outside an array, extra keys beside `$t`
 * and `v`…) throws a `TypeError` naming the tag; callers wrap it into `CorruptCheckpointError`.
 *
 * Canonical text: `canonicalJson` is fast-json-stable-stringify of the encoding (object keys sorted by
 * UTF-16 code units), so equal values give equal bytes whatever their key order.
 */
const TAG = '$t';
const PROTO_KEY = '__proto__';

/** Arrays and objects nested deeper than this are refused when encoding and rejected when decoding. */
export const MAX_NESTING_DEPTH = 1_000;

type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };
type EncodedObject = { [key: string]: Encoded };

// Payload-less tags are shared (frozen) rather than allocated per value.
const UNDEF: Encoded = Object.freeze({ [TAG]: 'undef' });
const HOLE: Encoded = Object.freeze({ [TAG]: 'hole' });
const NAN: Encoded = Object.freeze({ [TAG]: 'nan' });
const INF: Encoded = Object.freeze({ [TAG]: 'inf' });
const NEG_INF: Encoded = Object.freeze({ [TAG]: '-inf' });
const NEG_ZERO: Encoded = Object.freeze({ [TAG]: '-0' });

const ObjectPrototype = Object.prototype;
const ArrayPrototype = Array.prototype;
const DatePrototype = Date.prototype;
const Uint8ArrayPrototype = Uint8Array.prototype;
const BufferPrototype = Buffer.prototype;
const { getPrototypeOf, keys: objectKeys, getOwnPropertyNames, getOwnPropertySymbols, hasOwn } = Object;

/** Define `key` as an own data property; plain assignment would call the `__proto__` setter. */
function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------------------

/** An array or plain object being encoded: `keys` is undefined for an array. */
interface EncodeFrame {
  readonly source: object;
  readonly out: Encoded[] | EncodedObject;
  readonly keys: string[] | undefined;
  readonly length: number;
  /** The next key/element to encode; while a child is being encoded, `index - 1` is the child's. */
  index: number;
}

/** Why a value cannot be stored; `key` names an offending own property of the value itself. */
class Refusal extends Error {
  constructor(
    reason: string,
    readonly key?: string | symbol,
  ) {
    super(reason);
  }
}

/**
 * Encode a value into plain JSON data; throws `UnencodableValueError` naming the offending path (rooted at
 * `path`). Treat the result as read-only: payload-less tags (`undef`, `hole`, `nan`…) are shared frozen objects.
 */
export function encodeValue(value: unknown, path = '$'): Encoded {
  const frames: EncodeFrame[] = [];
  const seen = new Set<object>();
  try {
    const root = encodeOne(value, frames, seen);
    while (frames.length !== 0) {
      const frame = frames[frames.length - 1]!;
      const index = frame.index;
      if (index === frame.length) {
        frames.pop();
        seen.delete(frame.source);
        continue;
      }
      frame.index = index + 1;
      const keys = frame.keys;
      if (keys === undefined) {
        const source = frame.source as unknown[];
        (frame.out as Encoded[]).push(index in source ? encodeOne(source[index], frames, seen) : HOLE);
      } else {
        const key = keys[index]!;
        const item = encodeOne((frame.source as Record<string, unknown>)[key], frames, seen);
        if (key === PROTO_KEY) defineData(frame.out, key, item);
        else (frame.out as EncodedObject)[key] = item;
      }
    }
    return root;
  } catch (error) {
    throw toUnencodable(error, path, frames);
  }
}

/** Encode a scalar, or open an array/object (pushing its frame) and return its still-empty output. */
function encodeOne(value: unknown, frames: EncodeFrame[], seen: Set<object>): Encoded {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (value === 0) return 1 / value < 0 ? NEG_ZERO : 0;
      if (value - value === 0) return value; // finite
      return Number.isNaN(value) ? NAN : value > 0 ? INF : NEG_INF;
    case 'undefined':
      return UNDEF;
    case 'bigint':
      return { [TAG]: 'big', v: value.toString() };
    case 'function':
      throw new Refusal('a function cannot be stored');
    case 'symbol':
      throw new Refusal('a symbol cannot be stored');
  }
  if (value === null) return null;
  const object = value as object;
  const proto: unknown = getPrototypeOf(object);
  if (proto === ObjectPrototype || proto === null) {
    enter(object, frames, seen);
    const keys = objectKeys(object);
    if (getOwnPropertyNames(object).length !== keys.length || getOwnPropertySymbols(object).length !== 0) {
      refuseHiddenKey(object, false);
    }
    const out: EncodedObject = {};
    frames.push({ source: object, out, keys, length: keys.length, index: 0 });
    seen.add(object);
    return hasOwn(object, TAG) ? { [TAG]: 'obj', v: out } : out;
  }
  if (proto === ArrayPrototype && Array.isArray(object)) {
    enter(object, frames, seen);
    if (getOwnPropertySymbols(object).length !== 0) refuseHiddenKey(object, true);
    const out: Encoded[] = [];
    frames.push({ source: object, out, keys: undefined, length: object.length, index: 0 });
    seen.add(object);
    return out;
  }
  if (proto === DatePrototype) {
    const date = object as Date;
    return { [TAG]: 'date', v: Number.isNaN(date.getTime()) ? 'invalid' : date.toISOString() };
  }
  if (proto === Uint8ArrayPrototype || proto === BufferPrototype) {
    const bytes = object as Uint8Array;
    return {
      [TAG]: proto === BufferPrototype ? 'buf' : 'bin',
      v: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
    };
  }
  throw new Refusal(unsupportedReason(object, proto));
}

/** Refuse a cycle or a value nested too deeply before opening an array/object. */
function enter(object: object, frames: EncodeFrame[], seen: Set<object>): void {
  if (seen.has(object)) throw new Refusal('the value contains a cycle (it contains itself)');
  if (frames.length >= MAX_NESTING_DEPTH) {
    throw new Refusal(`the value is nested too deeply (more than ${MAX_NESTING_DEPTH} arrays/objects)`);
  }
}

/** The slow path: name the symbol-keyed or non-enumerable own property that `Object.keys` would drop. */
function refuseHiddenKey(object: object, isArray: boolean): never {
  for (const key of Reflect.ownKeys(object)) {
    if (typeof key === 'symbol') {
      throw new Refusal(`the symbol-keyed property ${String(key)} would be lost; use a string key`, key);
    }
    if (!isArray && !Object.prototype.propertyIsEnumerable.call(object, key)) {
      throw new Refusal('this non-enumerable property would be lost; make it enumerable or remove it', key);
    }
  }
  throw new Refusal('the value has own properties that cannot be enumerated');
}

function unsupportedReason(object: object, proto: unknown): string {
  const name = typeName(object, proto);
  if (ArrayBuffer.isView(object)) {
    return `type ${name} has no codec; copy its bytes into a Uint8Array (or a Buffer)`;
  }
  if (object instanceof ArrayBuffer || object instanceof SharedArrayBuffer) {
    return `type ${name} has no codec; wrap it in a Uint8Array`;
  }
  if (Array.isArray(object)) return `type ${name} (not a plain array) has no codec; store a plain array`;
  if (object instanceof Date) return `type ${name} (a Date subclass) has no codec; store a plain Date`;
  return `type ${name} has no codec; store plain data (objects, arrays, strings, numbers, booleans, null, Date, bigint, Uint8Array, Buffer)`;
}

/** The name of an object's type for messages: its class name, or its built-in tag. */
function typeName(object: object, proto: unknown): string {
  try {
    if (typeof proto === 'object' && proto !== null && hasOwn(proto, 'constructor')) {
      const ctor = (proto as { constructor: unknown }).constructor;
      if (typeof ctor === 'function' && ctor.name !== '') {
        const name = ctor.name;
        // A built-in of another realm (a vm context): its constructor is not ours.
        const ours = (globalThis as Record<string, unknown>)[name];
        return typeof ours === 'function' && ours !== ctor ? `${name} (from another realm)` : name;
      }
    }
  } catch {
    // A proxy or an exotic prototype: fall back to the built-in tag.
  }
  return `${Object.prototype.toString.call(object).slice(8, -1)} (with a custom prototype)`;
}

/** Turn whatever stopped the encoding into an `UnencodableValueError` at the path being encoded. */
function toUnencodable(error: unknown, root: string, frames: EncodeFrame[]): UnencodableValueError {
  let path = root;
  for (const frame of frames) {
    path += pathSegment(frame.keys === undefined ? frame.index - 1 : frame.keys[frame.index - 1]!);
  }
  if (error instanceof Refusal) {
    return new UnencodableValueError(error.key === undefined ? path : path + pathSegment(error.key), error.message);
  }
  // Thrown by user code while reading the value: a getter or a proxy trap.
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const refusal = new UnencodableValueError(path, `reading the value threw ${detail}`);
  Object.defineProperty(refusal, 'cause', { value: error, writable: true, enumerable: false, configurable: true });
  return refusal;
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

/** One step of an error path: `[2]`, `.name`, `["my key"]` or `[Symbol(tag)]`. */
function pathSegment(key: string | number | symbol): string {
  if (typeof key === 'number') return `[${key}]`;
  if (typeof key === 'symbol') return `[${String(key)}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

// ---------------------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------------------

/** An encoded array or object being decoded: `keys` is undefined for an array. */
interface DecodeFrame {
  readonly source: unknown[] | Record<string, unknown>;
  readonly out: unknown[] | Record<string, unknown>;
  readonly keys: string[] | undefined;
  readonly length: number;
  index: number;
}

/** Decode what `encodeValue` produced. Throws a `TypeError` on an unknown or malformed tag. */
export function decodeValue(encoded: unknown): unknown {
  const frames: DecodeFrame[] = [];
  const root = decodeOne(encoded, frames);
  while (frames.length !== 0) {
    const frame = frames[frames.length - 1]!;
    const index = frame.index;
    if (index === frame.length) {
      frames.pop();
      continue;
    }
    frame.index = index + 1;
    const keys = frame.keys;
    if (keys === undefined) {
      const item = (frame.source as unknown[])[index];
      if (isHole(item)) continue; // the slot stays empty
      (frame.out as unknown[])[index] = decodeOne(item, frames);
    } else {
      const key = keys[index]!;
      const item = decodeOne((frame.source as Record<string, unknown>)[key], frames);
      if (key === PROTO_KEY) defineData(frame.out, key, item);
      else (frame.out as Record<string, unknown>)[key] = item;
    }
  }
  return root;
}

/** Decode a scalar or a tag, or open an array/object (pushing its frame) and return its still-empty output. */
function decodeOne(encoded: unknown, frames: DecodeFrame[]): unknown {
  if (encoded === null || typeof encoded !== 'object') return encoded;
  if (Array.isArray(encoded)) {
    checkDepth(frames);
    const out: unknown[] = new Array(encoded.length);
    frames.push({ source: encoded, out, keys: undefined, length: encoded.length, index: 0 });
    return out;
  }
  const record = encoded as Record<string, unknown>;
  if (hasOwn(record, TAG)) return decodeTag(record, frames);
  return openObject(record, frames);
}

function openObject(record: Record<string, unknown>, frames: DecodeFrame[]): Record<string, unknown> {
  checkDepth(frames);
  const keys = objectKeys(record);
  const out: Record<string, unknown> = {};
  frames.push({ source: record, out, keys, length: keys.length, index: 0 });
  return out;
}

function checkDepth(frames: DecodeFrame[]): void {
  if (frames.length >= MAX_NESTING_DEPTH) {
    throw new TypeError(`the encoded value is nested deeper than ${MAX_NESTING_DEPTH} arrays/objects`);
  }
}

function isHole(item: unknown): boolean {
  if (typeof item !== 'object' || item === null || !hasOwn(item, TAG)) return false;
  const record = item as Record<string, unknown>;
  if (record[TAG] !== 'hole') return false;
  bare(record, 'hole');
  return true;
}

function decodeTag(record: Record<string, unknown>, frames: DecodeFrame[]): unknown {
  const kind = record[TAG];
  if (typeof kind !== 'string') {
    throw new TypeError(
      `malformed value tag: "$t" holds ${kind === null ? 'null' : `a ${typeof kind}`}, not a tag name`,
    );
  }
  switch (kind) {
    case 'undef':
      bare(record, kind);
      return undefined;
    case 'nan':
      bare(record, kind);
      return Number.NaN;
    case 'inf':
      bare(record, kind);
      return Number.POSITIVE_INFINITY;
    case '-inf':
      bare(record, kind);
      return Number.NEGATIVE_INFINITY;
    case '-0':
      bare(record, kind);
      return -0;
    case 'big': {
      const v = textPayload(record, kind);
      let big: bigint | undefined;
      try {
        big = BigInt(v);
      } catch {
        big = undefined;
      }
      if (big === undefined || big.toString() !== v) throw malformed(kind, 'its "v" is not a decimal integer');
      return big;
    }
    case 'date': {
      const v = textPayload(record, kind);
      if (v === 'invalid') return new Date(Number.NaN);
      const date = new Date(v);
      if (Number.isNaN(date.getTime()) || date.toISOString() !== v) throw malformed(kind, 'its "v" is not an ISO date');
      return date;
    }
    case 'bin':
    case 'buf': {
      const v = textPayload(record, kind);
      const bytes = Buffer.from(v, 'base64');
      if (bytes.toString('base64') !== v) throw malformed(kind, 'its "v" is not base64');
      return kind === 'buf' ? bytes : new Uint8Array(bytes);
    }
    case 'obj': {
      const v = payload(record, kind);
      if (typeof v !== 'object' || v === null || Array.isArray(v) || !hasOwn(v, TAG)) {
        throw malformed(kind, 'its "v" is not an object with a "$t" key');
      }
      return openObject(v as Record<string, unknown>, frames);
    }
    case 'hole':
      throw malformed(kind, 'a hole can only be an array element');
    default:
      throw new TypeError(`unknown value tag ${JSON.stringify(kind)}`);
  }
}

/** A tag without payload must be exactly `{ "$t": kind }`. */
function bare(record: Record<string, unknown>, kind: string): void {
  if (objectKeys(record).length !== 1) throw malformed(kind, 'it has keys beside "$t"');
}

/** A tag with payload must be exactly `{ "$t": kind, "v": … }`. */
function payload(record: Record<string, unknown>, kind: string): unknown {
  if (!hasOwn(record, 'v') || objectKeys(record).length !== 2) {
    throw malformed(kind, 'it must have exactly the keys "$t" and "v"');
  }
  return record.v;
}

function textPayload(record: Record<string, unknown>, kind: string): string {
  const v = payload(record, kind);
  if (typeof v !== 'string') throw malformed(kind, 'its "v" is not a string');
  return v;
}

function malformed(kind: string, reason: string): TypeError {
  return new TypeError(`malformed value tag ${JSON.stringify(kind)}: ${reason}`);
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
