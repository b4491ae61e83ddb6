import {
  type InstanceRecord,
  type JobRecord,
  type JournalEntry,
  receiptMatches,
  StaleReceiptError,
  stepIdentity,
  type TrackRecord,
} from '@thresher/checkpoint';
import type { InstanceState } from './instance-state.js';
import { isJobNode, type ProcessDef } from './model/types.js';

/** The identity of the invocation a track makes at its element: what its job and receipts are bound to. */
export function invocationIdentity(instance: InstanceRecord, track: TrackRecord, inputDigest: string): string {
  return stepIdentity({
    instanceId: instance.id,
    definitionDigest: instance.definition.digest,
    nodeId: track.nodeId,
    scopePath: track.scopePath,
    attempt: track.attempt,
    inputDigest,
  });
}

/**
 * Check the journal recovered with a checkpoint before any of it is applied (seed 001): each result must
 * match its receipt, and each receipt must belong to a job of this checkpoint whose identity is still what
 * the pinned definition, the job's position and its inputs derive. Anything else fails closed with
 * `StaleReceiptError`; entries written before receipts existed (no `receipt`) are applied as they are.
 */
export function checkJournal(process: ProcessDef, state: InstanceState, entries: JournalEntry[]): JournalEntry[] {
  const instanceId = state.instance.id;
  for (const entry of entries) {
    const job: JobRecord | undefined = state.jobs.get(entry.jobId);
    const refuse = (reason: string): never => {
      throw new StaleReceiptError(instanceId, entry.jobId, job?.nodeId ?? null, reason);
    };
    if (!job) refuse('the checkpoint it is filed against has no such job');
    const receipt = entry.receipt as JournalEntry['receipt'] | undefined;
    if (receipt === undefined) continue;
    if (!receiptMatches(receipt, entry.result)) refuse('the stored result does not match its receipt');
    if (receipt.identity !== job!.identity) refuse('the receipt was issued for another invocation');
    const node = process.nodes.get(job!.nodeId);
    if (!isJobNode(node) || node.taskType !== job!.taskType) {
      refuse(`the pinned definition has no job "${job!.nodeId}" of type "${job!.taskType}"`);
    }
    const track = state.tracks.get(job!.trackId);
    if (!track || track.nodeId !== job!.nodeId) refuse('its track is no longer at the step');
    if (
      job!.inputDigest !== null &&
      invocationIdentity(state.instance, track!, job!.inputDigest) !== receipt.identity
    ) {
      refuse('its identity is not what the pinned definition and its inputs derive');
    }
  }
  return entries;
}
