import type { JournalEntry } from './body-records.js';
import { canonicalBytes, fromCanonicalBytes } from './codec.js';
import { CorruptCheckpointError } from './errors.js';

/** Where a journal entry was read from, for naming it when it cannot be read. */
export interface JournalEntryAt {
  instanceId: string;
  seq: number;
  taskId: string;
  index: number;
}

/**
 * The journal: a completed step's result and receipt, filed as a repository write against the checkpoint
 * it completed after, so a restore applies it instead of running the step again.
 */

/** Encode a journal entry as the bytes of a repository write. */
export function encodeJournalEntry(entry: JournalEntry): Uint8Array {
  return canonicalBytes(entry, '$journal');
}

/**
 * Decode a repository write into a journal entry.
 *
 * @throws CorruptCheckpointError naming the instance, seq and entry when the bytes are not a journal entry
 *   (truncated, tampered): a restore must fail as corruption, never with a raw parse error.
 */
export function decodeJournalEntry(bytes: Uint8Array, at?: JournalEntryAt): JournalEntry {
  const corrupt = (reason: string, cause?: unknown): never => {
    const entry = at ? `journal entry ${JSON.stringify(at.taskId)} #${at.index}` : 'a journal entry';
    throw new CorruptCheckpointError(at?.instanceId ?? '?', at?.seq, `${entry} ${reason}`, { cause });
  };
  let value: unknown;
  try {
    value = fromCanonicalBytes(bytes);
  } catch (cause) {
    return corrupt('is not a readable document (truncated or altered)', cause);
  }
  const entry = value as Partial<JournalEntry> | null;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return corrupt('is not an object');
  if (typeof entry.jobId !== 'string') corrupt('has no jobId');
  if (typeof entry.result !== 'object' || entry.result === null || Array.isArray(entry.result)) {
    corrupt('has no result object');
  }
  return entry as JournalEntry;
}
