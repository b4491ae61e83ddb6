import { ConflictError } from './errors.js';
import type { PutCheckpoint, RewriteCheckpoint } from './repository.js';

/** Byte-for-byte equality of two documents. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

/**
 * The `put` rules every store applies inside its write transaction, so they agree to the letter: a replay
 * of a stored seq with the same bytes is a no-op (`'replay'`), with other bytes a conflict; otherwise the
 * parent must be the latest seq (null when there is none) and the seq must move forward (`'insert'`).
 *
 * @param stored the bytes already stored at `checkpoint.seq`, if any
 * @param latest the instance's latest seq, null when it has none
 */
export function decidePut(
  checkpoint: PutCheckpoint,
  stored: Uint8Array | undefined,
  latest: number | null,
): 'replay' | 'insert' {
  const { instanceId, seq, parentSeq } = checkpoint;
  if (stored !== undefined) {
    // A replayed put (e.g. a retry after a lost acknowledgement) is a no-op only if it is the same document.
    if (equalBytes(stored, checkpoint.bytes)) return 'replay';
    throw new ConflictError(instanceId, seq, `seq ${seq} is already stored with different bytes`);
  }
  if (parentSeq !== latest) {
    throw new ConflictError(
      instanceId,
      seq,
      latest === null
        ? `the instance has no checkpoint, so parentSeq must be null, not ${parentSeq}`
        : `parentSeq ${parentSeq} is stale; the latest seq is ${latest}`,
    );
  }
  if (latest !== null && seq <= latest) {
    throw new ConflictError(instanceId, seq, `seq ${seq} must be greater than its parent seq ${latest}`);
  }
  return 'insert';
}

/**
 * The `rewrite` rules every store applies inside its write transaction: the checkpoint must exist; a
 * retried rewrite that already landed finds its own bytes (`'replay'`); otherwise the stored digest must
 * still be the expected one (`'replace'`), else another writer got there first.
 */
export function decideRewrite(
  checkpoint: RewriteCheckpoint,
  stored: { digest: string; bytes: Uint8Array } | undefined,
): 'replay' | 'replace' {
  const { instanceId, seq } = checkpoint;
  if (stored === undefined) throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to rewrite`);
  if (equalBytes(stored.bytes, checkpoint.bytes)) return 'replay';
  if (stored.digest !== checkpoint.expectedDigest) {
    throw new ConflictError(
      instanceId,
      seq,
      `the stored digest is ${stored.digest}, not the expected ${checkpoint.expectedDigest}; another writer rewrote it`,
    );
  }
  return 'replace';
}
