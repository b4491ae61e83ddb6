/**
 * Encoding a value into plain JSON data that round-trips what JSON cannot (see `codec.ts`).
 */
import { UnencodableValueError } from './errors.js';
import {
  ArrayPrototype,
  BufferPrototype,
  DatePrototype,
  defineData,
  type Encoded,
  type EncodedObject,
  HOLE,
  INF,
  MAX_NESTING_DEPTH,
  NAN,
  NEG_INF,
  NEG_ZERO,
  ObjectPrototype,
  PROTO_KEY,
  TAG,
  Uint8ArrayPrototype,
  UNDEF,
} from './value-tags.js';

const { getPrototypeOf, keys: objectKeys, getOwnPropertyNames, getOwnPropertySymbols, hasOwn } = Object;

/** An array or plain object being encoded: `keys` is undefined for an array. */
interface EncodeFrame {
  readonly source: object;
  readonly out: Encoded[] | EncodedObject;
  readonly keys: string[] | undefined;
  readonly length: number;
  /** The next key/element to encode; while a child is being encoded, `index - 1` is the child's. */
  index: number;
}

/** One encoding under way: the open arrays/objects, and whether keys are written sorted. */
interface Walk {
  /** The open arrays/objects, outermost first: one met again among them closes a cycle. */
  readonly frames: EncodeFrame[];
  /** Each object's keys in UTF-16 code unit order, as canonical text writes them. */
  readonly sorted: boolean;
  /** Some object has an array-index key ("0", "17"), which JavaScript enumerates before any other. */
  indexKeys: boolean;
  /** Only refusing what cannot be stored: nothing is built (`checkEncodable`). */
  readonly check: boolean;
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
  return encodeWalk(value, path, false).encoded;
}

/**
 * Refuse what {@link encodeValue} would refuse (`UnencodableValueError`, naming the path rooted at `path`)
 * without building the encoded copy: for a caller's values checked before anything is changed, which the
 * checkpoint then encodes once.
 */
export function checkEncodable(value: unknown, path = '$'): void {
  encodeWalk(value, path, false, true);
}

/**
 * Encode as {@link encodeValue} does, each object's keys inserted in sorted (UTF-16 code unit) order, so
 * that `JSON.stringify` writes canonical text — unless `indexKeys`: an object has an array-index key, which
 * JavaScript enumerates first whatever the insertion order.
 */
export function encodeSorted(value: unknown, path = '$'): { encoded: Encoded; indexKeys: boolean } {
  return encodeWalk(value, path, true);
}

function encodeWalk(
  value: unknown,
  path: string,
  sorted: boolean,
  check = false,
): { encoded: Encoded; indexKeys: boolean } {
  const walk: Walk = { frames: [], sorted, indexKeys: false, check };
  const { frames } = walk;
  try {
    const root = encodeOne(value, walk);
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
        const source = frame.source as unknown[];
        const item = index in source ? encodeOne(source[index], walk) : HOLE;
        if (!check) (frame.out as Encoded[]).push(item);
      } else {
        const key = keys[index]!;
        const item = encodeOne((frame.source as Record<string, unknown>)[key], walk);
        if (check) continue;
        if (key === PROTO_KEY) defineData(frame.out, key, item);
        else (frame.out as EncodedObject)[key] = item;
      }
    }
    return { encoded: root, indexKeys: walk.indexKeys };
  } catch (error) {
    throw toUnencodable(error, path, frames);
  }
}

/** A canonical array index ("0" … "4294967294"): JavaScript orders such keys before all others. */
function isIndexKey(key: string | undefined): boolean {
  return key !== undefined && /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

/** Encode a scalar, or open an array/object (pushing its frame) and return its still-empty output. */
function encodeOne(value: unknown, walk: Walk): Encoded {
  const { frames } = walk;
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
    enter(object, frames);
    const keys = objectKeys(object);
    if (getOwnPropertyNames(object).length !== keys.length || getOwnPropertySymbols(object).length !== 0) {
      refuseHiddenKey(object, false);
    }
    if (walk.sorted) {
      // Index keys come first in `Object.keys`, so the first key says whether there are any.
      if (isIndexKey(keys[0])) walk.indexKeys = true;
      keys.sort();
    }
    const out: EncodedObject = {};
    frames.push({ source: object, out, keys, length: keys.length, index: 0 });
    return hasOwn(object, TAG) ? { [TAG]: 'obj', v: out } : out;
  }
  if (proto === ArrayPrototype && Array.isArray(object)) {
    enter(object, frames);
    if (getOwnPropertySymbols(object).length !== 0) refuseHiddenKey(object, true);
    const out: Encoded[] = [];
    frames.push({ source: object, out, keys: undefined, length: object.length, index: 0 });
    return out;
  }
  if (proto === DatePrototype) {
    if (walk.check) return null;
    const date = object as Date;
    return { [TAG]: 'date', v: Number.isNaN(date.getTime()) ? 'invalid' : date.toISOString() };
  }
  if (proto === Uint8ArrayPrototype || proto === BufferPrototype) {
    if (walk.check) return null;
    const bytes = object as Uint8Array;
    return {
      [TAG]: proto === BufferPrototype ? 'buf' : 'bin',
      v: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
    };
  }
  throw new Refusal(unsupportedReason(object, proto));
}

/** Refuse a cycle or a value nested too deeply before opening an array/object. */
function enter(object: object, frames: EncodeFrame[]): void {
  // The open frames are the path from the root, a few deep as a rule: scanning them costs less than a Set,
  // which gives every object it meets an identity hash (measured: ~15% of encoding a checkpoint body).
  for (let at = 0; at < frames.length; at++) {
    if (frames[at]!.source === object) throw new Refusal('the value contains a cycle (it contains itself)');
  }
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
