import { type InstanceRecord, type JobRecord, stepIdentity, type TrackRecord } from '@thresher/checkpoint';

/**
 * The identity of the invocation a track makes at its element (seed 001): what its job, its receipts and
 * the handler's idempotency key are bound to. The instance, the pinned definition, the element, its
 * scope path and visit count, and the digest of the variables it was invoked with — and, for an execution
 * listener's job, which listener it is, so it is neither the element's own job nor another listener's.
 */
export function invocationIdentity(
  instance: InstanceRecord,
  track: TrackRecord,
  inputDigest: string,
  listener?: JobRecord['listener'],
): string {
  return stepIdentity({
    instanceId: instance.id,
    definitionDigest: instance.definition.digest,
    nodeId: track.nodeId,
    scopePath: track.scopePath,
    attempt: track.attempt,
    inputDigest,
    // Only a listener's job has the key: the element's own job keeps the identity it always had.
    ...(listener ? { listener: `${listener.eventType}/${listener.index}` } : {}),
  });
}
