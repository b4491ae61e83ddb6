/**
 * A stored checkpoint opened for reading, as the engine opens it to restore: for tools and harnesses that look
 * at what one checkpoint held (its scopes with their visit counts, its timers and subscriptions) without running
 * the instance.
 *
 * @module
 */
import type { ScopeRecord, StoredCheckpoint, SubscriptionRecord, TimerRecord, TrackRecord } from '@thresher/checkpoint';
import { openStored } from './capture.js';

/** What one checkpoint holds of an instance's live state, its records whole. */
export interface CheckpointContents {
  instanceId: string;
  seq: number;
  /** Every open scope, with `visits`: how often each element was entered in it. */
  scopes: ScopeRecord[];
  tracks: TrackRecord[];
  timers: TimerRecord[];
  subscriptions: SubscriptionRecord[];
}

/**
 * Open a stored checkpoint (`Repository.get`, `list`): its digest checked, an older schema migrated, a newer one
 * refused, each as a restore does (`CorruptCheckpointError`, `FutureSchemaError`, naming the instance and seq).
 */
export function inspectCheckpoint(stored: StoredCheckpoint): CheckpointContents {
  const state = openStored(stored);
  return {
    instanceId: stored.instanceId,
    seq: stored.seq,
    scopes: [...state.scopes.values()],
    tracks: [...state.tracks.values()],
    timers: [...state.timers.values()],
    subscriptions: [...state.subscriptions.values()],
  };
}
