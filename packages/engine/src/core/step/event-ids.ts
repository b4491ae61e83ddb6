import type { EngineEventType } from '../../common/events.js';
import { scopePath } from './records.js';

/**
 * The one place event ids are made. An id is derived from what the event is, never from when it was
 * published, so the same event published again after a crash carries the same id (docs/architecture.md §4). There are
 * three shapes: an event of the instance or of one of its records, a track's move at an element, and a
 * job's event, keyed by the step identity so a retry after a restore repeats it.
 */

/** `<instance>:<type>[:<part>…]`: the instance's own events and those of a record it holds. */
export function eventId(instanceId: string, type: EngineEventType, ...parts: (string | number)[]): string {
  return parts.length === 0 ? `${instanceId}:${type}` : `${instanceId}:${type}:${parts.join(':')}`;
}

/** What tells one activation of an element apart: its scope, element, visit count and track. */
export interface Activation {
  id: string;
  scopePath: string;
  nodeId: string;
  attempt: number;
}

/**
 * One activation of an element, unique in its instance and the same for good: `<scope>:<element>:<attempt>` (a
 * scope's path names its own activation, and the attempt counts the element's entries in it).
 */
export function elementInstanceId(track: Omit<Activation, 'id'>): string {
  return `${track.scopePath}:${track.nodeId}:${track.attempt}`;
}

/**
 * The scope an activation (`<scope>:<element>:<attempt>`) opens when its element is a container — a sub-process, a
 * multi-instance body's bodies under it (`[k]`), an ad-hoc sub-process's activations under it (`/element~n`) —
 * derived as the engine derives it; an activation of a task opens none, and no scope has the path given for it.
 */
export function activationScope(elementInstanceId: string): string {
  const attemptAt = elementInstanceId.lastIndexOf(':');
  const nodeAt = elementInstanceId.lastIndexOf(':', attemptAt - 1);
  const scope = elementInstanceId.slice(0, nodeAt);
  const nodeId = elementInstanceId.slice(nodeAt + 1, attemptAt);
  const attempt = Number(elementInstanceId.slice(attemptAt + 1));
  return scopePath(scope, nodeId, { pass: attempt });
}

/** `<instance>:<scope>:<element>:<attempt>:<track>:entered|left`. */
export function trackEventId(instanceId: string, track: Activation, move: 'entered' | 'left'): string {
  return `${instanceId}:${track.scopePath}:${track.nodeId}:${track.attempt}:${track.id}:${move}`;
}

/** `<instance>:<step identity>:<type>[:<n>]`, n the attempt or failure it counts. */
export function jobEventId(
  instanceId: string,
  identity: string,
  type: 'job.dispatched' | 'job.completed' | 'job.failed',
  n?: number,
): string {
  return n === undefined ? `${instanceId}:${identity}:${type}` : `${instanceId}:${identity}:${type}:${n}`;
}
