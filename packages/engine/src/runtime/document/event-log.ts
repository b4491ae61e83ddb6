/**
 * `engine.events`: the events the store's log keeps, read in the store's order, so a consumer that was away
 * catches up from the last position it saw. Each log entry gives its checkpoint's `checkpoint.saved` and its
 * step's events, as they were published.
 *
 * @module
 */
import { type LogEntry, openStepLog, type Repository, type StepLog } from '@thresher/checkpoint';
import { InvalidArgumentError } from '../../common/errors.js';
import type { EngineEvent } from '../../common/events.js';
import type { Touchpoint } from '../../common/touchpoint-types.js';
import { eventsOfCheckpoint, needsPlan } from './step-events.js';

/** The touchpoint plan of the process a log entry's instance ran: what its stored touchpoint events left out. */
export type PlanOfEntry = (log: StepLog) => Promise<readonly Touchpoint[]>;

/** What `engine.events` reads. */
export interface EventsQuery {
  /** Only events after this one: the `position` of the last event read. From the oldest stored when absent. */
  after?: string;
  /** Only this instance's events. */
  instanceId?: string;
  /** At most this many events (a positive integer); 1,000 when absent. */
  limit?: number;
}

/** An event as the log holds it: where it stands (pass it as `after` to read on), and the event as published. */
export interface LoggedEvent {
  position: string;
  event: EngineEvent;
}

const DEFAULT_LIMIT = 1000;
/** Log entries read from the store at a time. */
const ENTRY_PAGE = 200;
/** What an event position begins with: positions of the log (schema 14 on), not of the checkpoints before it. */
const CURSOR_KIND = 'log';

/**
 * Where an event stands: its log entry's position, the position of the entry read before it (null for the
 * log's first), its index in the entry, and whether it is the entry's last. A reader goes on by reading after
 * `previous`: no entry can appear between two the log handed out one after the other, so the first it finds is
 * the entry itself, unless that entry was deleted since (then every entry it finds is new to the reader).
 */
export interface EventCursor {
  previous: string | null;
  entry: string;
  index: number;
  last: boolean;
}

export function encodeCursor(cursor: EventCursor): string {
  const { previous, entry, index, last } = cursor;
  return Buffer.from(JSON.stringify([CURSOR_KIND, previous, entry, index, last ? 1 : 0])).toString('base64url');
}

/** The last entry a reader whose last event is at `cursor` has read whole (null: none). */
export function readWhole(cursor: EventCursor): string | null {
  return cursor.last ? cursor.entry : cursor.previous;
}

export function decodeCursor(position: string): EventCursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(position, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  if (Array.isArray(parts) && parts.length === 4 && parts[0] !== CURSOR_KIND) {
    throw new InvalidArgumentError(
      `events: after "${position}" is a position from before the event log (a build writing checkpoint schema 13 or older); read from the start, or from a position engine.events returned since`,
    );
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 5 ||
    parts[0] !== CURSOR_KIND ||
    (parts[1] !== null && typeof parts[1] !== 'string') ||
    typeof parts[2] !== 'string' ||
    !Number.isSafeInteger(parts[3]) ||
    (parts[3] as number) < 0 ||
    (parts[4] !== 0 && parts[4] !== 1)
  ) {
    throw new InvalidArgumentError(
      `events: after "${position}" is not the position of an event engine.events returned`,
    );
  }
  return { previous: parts[1] as string | null, entry: parts[2], index: parts[3] as number, last: parts[4] === 1 };
}

/** Read the logged events `query` asks for, in the store's order. */
export async function readEvents(
  repository: Repository,
  planOf: PlanOfEntry,
  query: EventsQuery = {},
): Promise<LoggedEvent[]> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(`events: limit must be a positive integer, not ${String(limit)}`);
  }
  const found: LoggedEvent[] = [];
  const cursor = query.after === undefined ? undefined : decodeCursor(query.after);
  // The entry the last event read came from: its rest is read, unless it is gone.
  let resume = cursor;
  let previous = cursor?.previous ?? null;
  while (found.length < limit) {
    const page = await repository.history({
      ...(previous === null ? {} : { after: previous }),
      ...(query.instanceId === undefined ? {} : { instanceId: query.instanceId }),
      limit: ENTRY_PAGE,
    });
    for (const entry of page) {
      const from = resume !== undefined && entry.position === resume.entry ? resume.index + 1 : 0;
      resume = undefined;
      await collect(found, planOf, entry, previous, from, limit);
      previous = entry.position;
      if (found.length >= limit) break;
    }
    if (page.length < ENTRY_PAGE) break;
  }
  return found;
}

/** Add a log entry's events from `from` on, up to `limit` events in all. */
async function collect(
  found: LoggedEvent[],
  planOf: PlanOfEntry,
  entry: LogEntry,
  previous: string | null,
  from: number,
  limit: number,
): Promise<void> {
  const { instanceId, seq } = entry;
  const log = openStepLog(entry.bytes, { instanceId, seq });
  const plan = needsPlan(log.events) ? await planOf(log) : undefined;
  const events = eventsOfCheckpoint(instanceId, seq, log.capturedAt, log.events, plan && (() => plan));
  for (let index = from; index < events.length && found.length < limit; index++) {
    const last = index === events.length - 1;
    found.push({ position: encodeCursor({ previous, entry: entry.position, index, last }), event: events[index]! });
  }
}
