/**
 * A step's events as its log entry keeps them (`StepLog.events`: no instance id, which the entry holds, ids
 * relative to it, no time when it is the step's) and as they are published, built from that stored form only
 * when someone listens — so an event published again after a kill is the one published first: same id, same
 * fields, same time.
 *
 * @module
 */
import type { StepEvent } from '@thresher/checkpoint';
import type { EngineEvent } from '../../common/events.js';
import type { Touchpoint } from '../../common/touchpoint-types.js';
import { aheadRecord } from '../../core/step/touchpoints.js';

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
  return parts[0] === '' &&
    parts[parts.length - 2] === trackId &&
    parts[parts.length - 4] === elementId &&
    event.elementInstanceId === activationOf(parts)
    ? event.id
    : undefined;
}

/** The element activation a track event's id parts name: `<scope>:<element>:<attempt>`, between the instance and the track. */
function activationOf(parts: readonly string[]): string {
  return parts.slice(1, -2).join(':');
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
  return {
    id: stored,
    type: typeOf(stored),
    trackId: parts[parts.length - 2]!,
    elementId: parts[parts.length - 4]!,
    elementInstanceId: activationOf(parts),
  };
}

/**
 * A step's event in the form its checkpoint keeps: a track event as its id alone ({@link compactEvent}); a
 * touchpoint event without what the process's touchpoint plan (`plan`, `processPlan(process).list`) gives
 * back — `touchpoints.planned` without its list (every touchpoint `ahead`), `touchpoint.updated` with its
 * touchpoint's `progress` only (schema 13: a parked document's largest event, about half as large).
 */
export function storedEvent(event: StepEvent, plan: readonly Touchpoint[]): StoredEvent {
  const compact = compactEvent(event);
  if (compact !== undefined) return compact;
  if (event.type === 'touchpoints.planned' && Array.isArray(event.touchpoints)) {
    const { touchpoints, ...rest } = event;
    return touchpoints.length === plan.length ? rest : event;
  }
  if (event.type === 'touchpoint.updated') {
    const { touchpoint, ...rest } = event;
    const entry = typeof event.index === 'number' ? plan[event.index] : undefined;
    const progress = entry && progressOf(touchpoint as Record<string, unknown>, entry);
    return progress ? { ...rest, progress } : event;
  }
  return event;
}

/**
 * What of a published touchpoint the plan's entry does not give back; undefined when it differs from the
 * entry on a field the entry has (it then stays whole).
 */
function progressOf(touchpoint: Record<string, unknown>, entry: Touchpoint): Record<string, unknown> | undefined {
  const progress: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(touchpoint)) {
    if (!(key in entry)) progress[key] = value;
    else if ((entry as unknown as Record<string, unknown>)[key] !== value) return undefined;
  }
  return progress;
}

/** Whether publishing these stored events needs the process's touchpoint plan (`storedEvent` left it out). */
export function needsPlan(events: readonly StoredEvent[] | undefined): boolean {
  return (events ?? []).some(
    (event) =>
      typeof event !== 'string' &&
      ((event.type === 'touchpoints.planned' && !('touchpoints' in event)) ||
        (event.type === 'touchpoint.updated' && 'progress' in event)),
  );
}

/** A stored touchpoint event whole again: what `storedEvent` left out, from the plan. */
function withTouchpoints(stored: StepEvent, plan: (() => readonly Touchpoint[]) | undefined): StepEvent {
  const planned = stored.type === 'touchpoints.planned' && !('touchpoints' in stored);
  const updated = stored.type === 'touchpoint.updated' && 'progress' in stored;
  if (!planned && !updated) return stored;
  if (plan === undefined) throw new Error(`publishing ${stored.type} ${stored.id} needs its process's touchpoint plan`);
  const list = plan();
  if (planned) {
    const { open: _open, pausedAt: _pausedAt, pausedMs: _pausedMs, ...ahead } = aheadRecord();
    return { ...stored, touchpoints: list.map((entry) => ({ ...entry, ...ahead })) };
  }
  const { progress, ...rest } = stored;
  const entry = list[stored.index as number];
  if (entry === undefined)
    throw new Error(`${stored.type} ${stored.id} names touchpoint ${String(stored.index)}, which the plan has not`);
  return { ...rest, touchpoint: { ...entry, ...(progress as Record<string, unknown>) } };
}

/**
 * A stored event published: its instance, its step's time (unless it has its own), its id whole again, and a
 * touchpoint event's touchpoints from `plan` (the instance's process's, asked only when needed).
 */
export function publishedEvent(
  event: StoredEvent,
  instanceId: string,
  capturedAt: number,
  plan?: () => readonly Touchpoint[],
): EngineEvent {
  const stored = withTouchpoints(expanded(event), plan);
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

/** Everything a checkpoint's step published, as published (`plan` as for {@link publishedEvent}). */
export function eventsOfCheckpoint(
  instanceId: string,
  seq: number,
  capturedAt: number,
  events: readonly StoredEvent[] | undefined,
  plan?: () => readonly Touchpoint[],
): EngineEvent[] {
  return storedOfCheckpoint(seq, events).map((stored) => publishedEvent(stored, instanceId, capturedAt, plan));
}
