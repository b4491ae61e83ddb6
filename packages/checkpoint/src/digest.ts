import { createHash } from 'node:crypto';
import { canonicalJson } from './codec.js';

/** sha256 hex of bytes or text. */
export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 hex of the concatenation of `parts`, without concatenating them. */
export function sha256Of(...parts: Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

/** sha256 hex of a value's canonical encoding. */
export function digestValue(value: unknown): string {
  return sha256(canonicalJson(value));
}

/**
 * A domain-separated digest: the domain string and the canonical JSON are joined by a NUL byte so that no
 * value of one domain can collide with a value of another.
 */
export function domainDigest(domain: string, value: unknown): string {
  return createHash('sha256').update(domain).update('\u0000').update(canonicalJson(value)).digest('hex');
}
