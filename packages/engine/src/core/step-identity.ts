import { type InstanceRecord, stepIdentity, type TrackRecord } from '@thresher/checkpoint';

/**
 * The identity of the invocation a track makes at its element (seed 001): what its job, its receipts and
 * the handler's idempotency key are bound to. The instance, the pinned definition, the element, its
 * scope path and visit count, and the digest of the variables it was invoked with.
 */
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
