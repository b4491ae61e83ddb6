import stringify from 'fast-json-stable-stringify';
import { decodeParsed, decodeValue } from './decode-value.js';
import { encodeSorted, encodeValue } from './encode-value.js';
import { plainCanonicalText } from './plain-text.js';

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

export { MAX_NESTING_DEPTH } from './value-tags.js';
export { decodeParsed, decodeValue, encodeValue };

/**
 * Canonical text of a value: equal values give equal text whatever their key order. Plain JSON data is
 * written in one pass (`plainCanonicalText`); anything else is encoded first, keys inserted sorted, so that
 * `JSON.stringify` writes the same text as the sorting writer, several times faster; an object with
 * array-index keys (which JavaScript enumerates first) takes the sorting writer.
 */
export function canonicalJson(value: unknown, path?: string): string {
  const plain = plainCanonicalText(value);
  if (plain !== undefined) return plain;
  const { encoded, indexKeys } = encodeSorted(value, path);
  return indexKeys ? stringify(encoded) : JSON.stringify(encoded);
}

/** Canonical bytes of a value (UTF-8 of `canonicalJson`). */
export function canonicalBytes(value: unknown, path?: string): Uint8Array {
  return Buffer.from(canonicalJson(value, path), 'utf8');
}

/** Decode canonical bytes back into a value. Throws `SyntaxError` on bytes that are not JSON. */
export function fromCanonicalBytes(bytes: Uint8Array): unknown {
  return decodeParsed(JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')));
}
