/**
 * What the value encoder and decoder share: the tag key, the payload-less tags, the nesting limit, and the
 * prototypes a value is recognised by. See `codec.ts` for the encoding itself.
 */

export const TAG = '$t';
export const PROTO_KEY = '__proto__';

/** Arrays and objects nested deeper than this are refused when encoding and rejected when decoding. */
export const MAX_NESTING_DEPTH = 1_000;

export type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };
export type EncodedObject = { [key: string]: Encoded };

// Payload-less tags are shared (frozen) rather than allocated per value.
export const UNDEF: Encoded = Object.freeze({ [TAG]: 'undef' });
export const HOLE: Encoded = Object.freeze({ [TAG]: 'hole' });
export const NAN: Encoded = Object.freeze({ [TAG]: 'nan' });
export const INF: Encoded = Object.freeze({ [TAG]: 'inf' });
export const NEG_INF: Encoded = Object.freeze({ [TAG]: '-inf' });
export const NEG_ZERO: Encoded = Object.freeze({ [TAG]: '-0' });

export const ObjectPrototype = Object.prototype;
export const ArrayPrototype = Array.prototype;
export const DatePrototype = Date.prototype;
export const Uint8ArrayPrototype = Uint8Array.prototype;
export const BufferPrototype = Buffer.prototype;

/** Define `key` as an own data property; plain assignment would call the `__proto__` setter. */
export function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
