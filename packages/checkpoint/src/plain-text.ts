/**
 * The canonical text of plain JSON data in one pass: what `canonicalJson` would write, without the encoded copy
 * it writes from. Most of a checkpoint is such data, and the copy was about a third of sealing one.
 */
import { ArrayPrototype, MAX_NESTING_DEPTH, ObjectPrototype, PROTO_KEY, TAG } from './value-tags.js';

const { getPrototypeOf, keys: objectKeys, getOwnPropertyNames, getOwnPropertySymbols } = Object;

/** What `JSON.stringify` escapes in a string (lone surrogates included; a pair is left to it as well). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The canonical text of `value` when it holds only strings, booleans, null, finite numbers other than -0,
 * and plain arrays (no holes) and objects (no hidden keys, no `$t` or `__proto__` key) nested under the limit;
 * `undefined` for anything else, and when reading the value throws: the encoder then decides, and names what
 * it refuses. The pass reads each property once, so a getter cannot hand it one value and the text another;
 * when it leaves the value to the encoder, the text comes from the encoder's own reading.
 */
export function plainCanonicalText(value: unknown): string | undefined {
  try {
    return write(value, 0);
  } catch {
    return undefined;
  }
}

function write(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // Finite and not -0: the encoder tags the others.
      return value - value === 0 && (value !== 0 || 1 / value > 0) ? String(value) : undefined;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  // The encoder refuses deeper values, and names a cycle; leave both to it.
  if (depth >= MAX_NESTING_DEPTH - 1) return undefined;
  const proto: unknown = getPrototypeOf(value);
  if (proto === ArrayPrototype) {
    const array = value as unknown[];
    if (!Array.isArray(array) || getOwnPropertySymbols(array).length !== 0) return undefined;
    let text = '[';
    for (let index = 0; index < array.length; index++) {
      if (!(index in array)) return undefined; // a hole
      const item = write(array[index], depth + 1);
      if (item === undefined) return undefined;
      text += index === 0 ? item : `,${item}`;
    }
    return `${text}]`;
  }
  if (proto !== ObjectPrototype && proto !== null) return undefined;
  const object = value as Record<string, unknown>;
  const keys = objectKeys(object);
  if (getOwnPropertyNames(object).length !== keys.length || getOwnPropertySymbols(object).length !== 0) {
    return undefined;
  }
  // Canonical order is UTF-16 code unit order, which `<` and the default sort compare; most objects are built in it.
  for (let index = 1; index < keys.length; index++) {
    if (!(keys[index - 1]! < keys[index]!)) {
      keys.sort();
      break;
    }
  }
  let text = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (key === TAG || key === PROTO_KEY) return undefined;
    const item = write(object[key], depth + 1);
    if (item === undefined) return undefined;
    const name = ESCAPED.test(key) ? JSON.stringify(key) : `"${key}"`;
    text += index === 0 ? `${name}:${item}` : `,${name}:${item}`;
  }
  return `${text}}`;
}
