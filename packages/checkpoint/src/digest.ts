import { hash } from 'node:crypto';
import { canonicalJson } from './codec.js';

/** sha256 hex of bytes or text (one-shot: no Hash object, a third faster on a checkpoint-sized input). */
export function sha256(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}

/**
 * sha256 hex of the concatenation of two byte ranges, copied into one (cheaper than a Hash object for ~1 KB):
 * into a buffer kept for it up to {@link SCRATCH_BYTES}, as a fresh one per call churned Node's buffer pool
 * (recover() spent more in that copy than in the hash).
 */
export function sha256Of(head: Uint8Array, tail: Uint8Array): string {
  const length = head.byteLength + tail.byteLength;
  if (length > SCRATCH_BYTES) return hash('sha256', Buffer.concat([head, tail]), 'hex');
  scratch.set(head, 0);
  scratch.set(tail, head.byteLength);
  return hash('sha256', scratch.subarray(0, length), 'hex');
}

/** Documents up to this size are joined in {@link scratch}; larger ones in a buffer of their own. */
const SCRATCH_BYTES = 64 * 1024;
const scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

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
