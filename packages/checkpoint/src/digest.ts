import { hash } from 'node:crypto';
import { canonicalJson } from './codec.js';

/** sha256 hex of bytes or text (one-shot: no Hash object, a third faster on a checkpoint-sized input). */
export function sha256(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}

/** sha256 hex of the concatenation of two byte ranges (copied into one: cheaper than a Hash object for ~1 KB). */
export function sha256Of(head: Uint8Array, tail: Uint8Array): string {
  return hash('sha256', Buffer.concat([head, tail]), 'hex');
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
  return sha256(`${domain}\u0000${canonicalJson(value)}`);
}
