import { type InstanceRecord, type JobRecord, stepIdentity, type TrackRecord } from '@thresher/checkpoint';

/**
 * The identity of the invocation a track makes at its element (seed 001): what its job, its receipts and
 * the handler's idempotency key are bound to. The instance, the pinned definition, the element, its
 * scope path and visit count, and the digest of the variables it was invoked with — and, for an execution
 * listener's job, which listener it is (`listenerKey`), so it is neither the element's own job nor another listener's.
 */
export function invocationIdentity(
  instance: InstanceRecord,
  track: TrackRecord,
  inputDigest: string,
  listener?: string,
): string {
  return stepIdentity({
    instanceId: instance.id,
    definitionDigest: instance.definition.digest,
    nodeId: track.nodeId,
    scopePath: track.scopePath,
    attempt: track.attempt,
    inputDigest,
    // Only a listener's job has the key: the element's own job keeps the identity it always had.
    ...(listener ? { listener } : {}),
  });
}

/**
 * Which listener a job runs, as its identity names it: an execution listener by event and index; a task
 * listener by its task, event, transition round and index (an assignment denied and asked again is a new
 * invocation). Undefined for an element's own job.
 */
export function listenerKey(job: Pick<JobRecord, 'listener' | 'taskListener'>): string | undefined {
  if (job.listener) return `${job.listener.eventType}/${job.listener.index}`;
  const task = job.taskListener;
  return task ? `task:${task.taskId}/${task.eventType}#${task.round}/${task.index}` : undefined;
}
