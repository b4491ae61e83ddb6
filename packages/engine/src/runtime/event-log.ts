/**
 * `engine.events`: the events the store's checkpoints keep, read in the store's order, so a consumer that was
 * away catches up from the last position it saw. Each checkpoint gives `checkpoint.saved` and its step's
 * events, as they were published.
 *
 * @module
 */
import { type CheckpointDocument, type LoggedCheckpoint, openCheckpoint, type Repository } from '@thresher/checkpoint';
import { InvalidArgumentError } from '../common/errors.js';
import type { EngineEvent } from '../common/events.js';
import type { Touchpoint } from '../common/touchpoint-types.js';
import { eventsOfCheckpoint, needsPlan } from './step-events.js';

/** The touchpoint plan of the process a document's instance runs: what its stored touchpoint events left out. */
export type PlanOfDocument = (document: CheckpointDocument) => Promise<readonly Touchpoint[]>;

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
/** Checkpoints read from the store at a time. */
const CHECKPOINT_PAGE = 200;

/** Where an event stands: its checkpoint's position in the store's log, the checkpoint, its index there. */
interface EventCursor {
  checkpoint: string;
  instanceId: string;
  seq: number;
  index: number;
}

function encodeCursor(cursor: EventCursor): string {
  const { checkpoint, instanceId, seq, index } = cursor;
  return Buffer.from(JSON.stringify([checkpoint, instanceId, seq, index])).toString('base64url');
}

function decodeCursor(position: string): EventCursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(position, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 4 ||
    typeof parts[0] !== 'string' ||
    typeof parts[1] !== 'string' ||
    !Number.isSafeInteger(parts[2]) ||
    !Number.isSafeInteger(parts[3])
  ) {
    throw new InvalidArgumentError(
      `events: after "${position}" is not the position of an event engine.events returned`,
    );
  }
  return { checkpoint: parts[0], instanceId: parts[1], seq: parts[2], index: parts[3] };
}

/** Read the logged events `query` asks for, in the store's order. */
export async function readEvents(
  repository: Repository,
  planOf: PlanOfDocument,
  query: EventsQuery = {},
): Promise<LoggedEvent[]> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(`events: limit must be a positive integer, not ${String(limit)}`);
  }
  const found: LoggedEvent[] = [];
  let after: string | undefined;
  if (query.after !== undefined) {
    const cursor = decodeCursor(query.after);
    after = cursor.checkpoint;
    // The rest of the checkpoint the last event read came from, unless it was pruned or deleted since.
    const stored = query.instanceId === undefined || query.instanceId === cursor.instanceId;
    const rest = stored ? await repository.get(cursor.instanceId, cursor.seq) : undefined;
    if (rest) await collect(found, planOf, { ...rest, position: cursor.checkpoint }, cursor.index + 1, limit);
  }
  while (found.length < limit) {
    const page = await repository.history({
      ...(after === undefined ? {} : { after }),
      ...(query.instanceId === undefined ? {} : { instanceId: query.instanceId }),
      limit: CHECKPOINT_PAGE,
    });
    for (const logged of page) {
      await collect(found, planOf, logged, 0, limit);
      if (found.length >= limit) break;
    }
    if (page.length < CHECKPOINT_PAGE) break;
    after = page[page.length - 1]!.position;
  }
  return found;
}

/** Add a checkpoint's events from `from` on, up to `limit` events in all. */
async function collect(
  found: LoggedEvent[],
  planOf: PlanOfDocument,
  logged: LoggedCheckpoint,
  from: number,
  limit: number,
): Promise<void> {
  const { instanceId, seq, schema } = logged;
  const document = openCheckpoint(logged.bytes, { instanceId, seq, schema });
  const stored = document.body.events;
  const plan = needsPlan(stored) ? await planOf(document) : undefined;
  const events = eventsOfCheckpoint(instanceId, seq, document.capturedAt, stored, plan && (() => plan));
  for (let index = from; index < events.length && found.length < limit; index++) {
    found.push({
      position: encodeCursor({ checkpoint: logged.position, instanceId, seq, index }),
      event: events[index]!,
    });
  }
}
