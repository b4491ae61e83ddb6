import { canonicalBytes, fromCanonicalBytes } from './codec.js';
import type { JournalEntry } from './types.js';

/**
 * The journal: a completed step's result and receipt, filed as a repository write against the checkpoint
 * it completed after, so a restore applies it instead of running the step again.
 */

/** Encode a journal entry as the bytes of a repository write. */
export function encodeJournalEntry(entry: JournalEntry): Uint8Array {
  return canonicalBytes(entry, '$journal');
}

/** Decode a repository write into a journal entry. */
export function decodeJournalEntry(bytes: Uint8Array): JournalEntry {
  return fromCanonicalBytes(bytes) as JournalEntry;
}
