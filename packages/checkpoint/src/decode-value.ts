/**
 * Decoding what `encodeValue` produced, strictly (see `codec.ts`).
 */
import { defineData, MAX_NESTING_DEPTH, PROTO_KEY, TAG } from './value-tags.js';

const { keys: objectKeys, hasOwn } = Object;

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

/**
 * Decode what `JSON.parse` just returned, taking it over: when it holds no tag and nests no deeper than the
 * limit, decoding would copy it unchanged, so it is returned as it is (most documents hold no tagged value);
 * otherwise {@link decodeValue} decides.
 */
export function decodeParsed(parsed: unknown): unknown {
  return isPlain(parsed, 0) ? parsed : decodeValue(parsed);
}

/** Whether `value` holds no tag key at any depth and nests under the limit (conservatively: false decides nothing). */
function isPlain(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_NESTING_DEPTH - 1) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isPlain(value[index], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (key === TAG || !isPlain((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
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
