/**
 * A step's events as its checkpoint keeps them (`body.events`: no instance id, which the document holds, ids
 * relative to it, no time when it is the step's) and as they are published, built from that stored form only
 * when someone listens — so an event published again after a kill is the one published first: same id, same
 * fields, same time.
 *
 * @module
 */
import type { StepEvent } from '@thresher/checkpoint';
import type { EngineEvent } from '../common/events.js';

/** An event id as a checkpoint keeps it: relative to the instance when it begins with the instance's id. */
export function relativeId(instanceId: string, id: string): string {
  return id.startsWith(`${instanceId}:`) ? id.slice(instanceId.length) : id;
}

/** A stored event: an object, or a track event as its relative id alone. */
export type StoredEvent = StepEvent | string;

/**
 * A track event as its relative id alone (`:<scope>:<element>:<attempt>:<track>:entered|left`), when the id
 * gives back its fields (element and track ids without `:`); undefined otherwise, and for any other event.
 */
export function compactEvent(event: StepEvent): string | undefined {
  if (event.type !== 'track.entered' && event.type !== 'track.left') return undefined;
  const parts = event.id.split(':');
  const { trackId, elementId } = event;
  return parts[0] === '' && parts[parts.length - 2] === trackId && parts[parts.length - 4] === elementId
    ? event.id
    : undefined;
}

/** A stored event's type, without building it. */
export function typeOf(stored: StoredEvent): string {
  if (typeof stored !== 'string') return stored.type;
  return stored.endsWith(':entered') ? 'track.entered' : 'track.left';
}

/** A stored event as an object: a track event given as its id takes its fields back from it. */
function expanded(stored: StoredEvent): StepEvent {
  if (typeof stored !== 'string') return stored;
  const parts = stored.split(':');
  return { id: stored, type: typeOf(stored), trackId: parts[parts.length - 2]!, elementId: parts[parts.length - 4]! };
}

/** A stored event published: its instance, its step's time (unless it has its own), its id whole again. */
export function publishedEvent(event: StoredEvent, instanceId: string, capturedAt: number): EngineEvent {
  const stored = expanded(event);
  const id = stored.id.startsWith(':') ? `${instanceId}${stored.id}` : stored.id;
  const at = typeof stored.at === 'number' ? stored.at : capturedAt;
  return { ...stored, id, instanceId, at } as unknown as EngineEvent;
}

/** `checkpoint.saved` of a checkpoint, in the stored form: derived from it, so never stored, the same each time. */
export function savedEvent(seq: number): StepEvent {
  return { id: `:checkpoint.saved:${seq}`, type: 'checkpoint.saved', seq };
}

/** What a checkpoint's step published, in order, in the stored form: `checkpoint.saved`, then its own events. */
export function storedOfCheckpoint(seq: number, events: readonly StoredEvent[] | undefined): StoredEvent[] {
  return [savedEvent(seq), ...(events ?? [])];
}

/** Everything a checkpoint's step published, as published. */
export function eventsOfCheckpoint(
  instanceId: string,
  seq: number,
  capturedAt: number,
  events: readonly StoredEvent[] | undefined,
): EngineEvent[] {
  return storedOfCheckpoint(seq, events).map((stored) => publishedEvent(stored, instanceId, capturedAt));
}
