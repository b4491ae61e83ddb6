/**
 * Timer start events run as instances, one per occurrence of the timer, each waiting at the start event
 * for its due time. This is the one place their ids are made and read.
 */

/** What every timer-start instance id begins with. */
export const TIMER_START_PREFIX = 'timer-start:';

/**
 * The instance waiting at a timer start event for one occurrence of its timer. Its id is fixed by the
 * deployment, the event and the occurrence, so creating it again (a redelivered outbox entry, a second
 * deploy of the same model) finds it instead of making a second one.
 */
export function timerStartInstanceId(digest: string, startNode: string, occurrence: number): string {
  return `${timerStartInstancePrefix(digest, startNode)}${occurrence}`;
}

/** What every occurrence's instance id of one timer start event of one deployment begins with. */
export function timerStartInstancePrefix(digest: string, startNode: string): string {
  return `${deploymentTimerStartPrefix(digest)}${startNode}:`;
}

/** What the ids of every timer-start instance of one deployment begin with. */
export function deploymentTimerStartPrefix(digest: string): string {
  return `${TIMER_START_PREFIX}${digest.slice(0, 16)}:`;
}

/** Which occurrence of a timer start event's cycle an instance is: the last segment of its id, else 0. */
export function timerStartOccurrence(instanceId: string): number {
  const match = /:(\d+)$/.exec(instanceId);
  return match ? Number(match[1]) : 0;
}
