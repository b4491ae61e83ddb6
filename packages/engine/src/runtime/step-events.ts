/**
 * A step's events as its checkpoint keeps them (`body.events`) and as they are published: the one place an
 * event is stamped, stored and read back, so an event published again after a kill is the one published
 * first — same id, same fields, same time.
 *
 * @module
 */
import type { StepEvent } from '@thresher/checkpoint';
import type { EngineEvent } from '../common/events.js';
import { eventId } from '../core/event-ids.js';

/**
 * The event as the checkpoint keeps it: no instance id (the document has it), no time when it is the step's
 * (`capturedAt`; a job dispatched after its backoff keeps its own), the id relative.
 */
export function storedEvent(event: EngineEvent, capturedAt: number): StepEvent {
  const { instanceId, at, ...rest } = event;
  const stored: Record<string, unknown> = at === capturedAt ? rest : { ...rest, at };
  // Ids are derived from the instance's id first: the document names the instance once.
  if (rest.id.startsWith(`${instanceId}:`)) stored.id = rest.id.slice(instanceId.length);
  return stored as StepEvent;
}

/** A stored event published: its instance, its step's time, its id whole again. */
export function publishedEvent(stored: StepEvent, instanceId: string, capturedAt: number): EngineEvent {
  const id = stored.id.startsWith(':') ? `${instanceId}${stored.id}` : stored.id;
  const at = typeof stored.at === 'number' ? stored.at : capturedAt;
  return { ...stored, id, instanceId, at } as unknown as EngineEvent;
}

/** `checkpoint.saved` for a checkpoint: derived from it, so never stored, and the same each time it is derived. */
export function savedEvent(instanceId: string, seq: number, at: number): EngineEvent {
  return { id: eventId(instanceId, 'checkpoint.saved', seq), type: 'checkpoint.saved', seq, instanceId, at };
}

/** Everything a checkpoint's step published, in order: `checkpoint.saved`, then the step's own events. */
export function eventsOfCheckpoint(
  instanceId: string,
  seq: number,
  capturedAt: number,
  events: readonly StepEvent[] | undefined,
): EngineEvent[] {
  const published = [savedEvent(instanceId, seq, capturedAt)];
  for (const stored of events ?? []) published.push(publishedEvent(stored, instanceId, capturedAt));
  return published;
}
