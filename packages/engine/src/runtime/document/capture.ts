import {
  type CheckpointBody,
  CorruptCheckpointError,
  decodeJournalEntry,
  type JobRecord,
  type JournalEntry,
  openCheckpoint,
  openStepLog,
  type PutCheckpoint,
  receiptMatches,
  StaleReceiptError,
  type StepLog,
  type StoredAt,
  type StoredCheckpoint,
  sealCheckpoint,
  sealStepLog,
} from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import { type InstanceRecords, InstanceState } from '../../core/step/state.js';
import { invocationIdentity, listenerKey } from '../../core/step/step-identity.js';
import { jobSourceOf, type ProcessDef } from '../../model/process-types.js';
import { packScopes, unpackScopes } from './body-scopes.js';
import { packTracks, packUserTasks, unpackWaits } from './body-waits.js';
import { type StoredEvent, storedOfCheckpoint } from './step-events.js';

/**
 * Capture and restore, paired: the one module that turns an instance's state into the checkpoint
 * document the repository stores, and a stored document (with its journal) back into state. The document
 * is decoded nowhere else.
 */

/**
 * Seal the state at `seq` into the write that stores it, with the index fields the repository keeps, and the
 * step's log entry: what the step did (and the past an older document carried), and its events (published
 * once it is durable). With `keepLast`, the put prunes the instance to its latest that many checkpoints.
 */
export function capture(
  state: InstanceState,
  seq: number,
  parentSeq: number | null,
  capturedAt: number,
  events: StoredEvent[] = [],
  keepLast?: number,
): PutCheckpoint {
  const { instance, done, past } = state;
  const definitionDigest = instance.definition.digest;
  const { document, bytes } = sealCheckpoint({
    instanceId: instance.id,
    seq,
    parentSeq,
    definitionDigest,
    capturedAt,
    body: packBody(state),
  });
  const log = sealStepLog({
    instanceId: instance.id,
    seq,
    processId: instance.processId,
    definitionDigest,
    capturedAt,
    completed: past === undefined ? done.completed : [...past.history, ...done.completed],
    flows: done.flows,
    decisions: past?.decisions === undefined ? done.decisions : [...past.decisions, ...done.decisions],
    events,
  });
  return {
    instanceId: instance.id,
    seq,
    parentSeq,
    schema: document.schema,
    definitionDigest: document.definitionDigest,
    digest: document.digest,
    bytes,
    log: log.bytes,
    ...(keepLast === undefined ? {} : { keepLast }),
    meta: {
      status: instance.status,
      processId: instance.processId,
      definitionId: instance.definition.id,
      businessKey: instance.businessKey,
      parentId: instance.parentId,
      callNodeId: instance.callNodeId,
      dueAt: state.nextDue(),
      endedAt: instance.endedAt,
      // `message:NAME` with its key, `signal:NAME`: what deliveries look instances up by.
      subscriptions: [...state.subscriptions.values()].map((s) => ({
        name: `${s.kind}:${s.name}`,
        key: s.correlationKey,
      })),
    },
  };
}

/**
 * The body the document writes for the state: a body its host derives whole as its path, a track that only
 * waits on its user task as `<id>@<path>`, a user task without candidate lists as a tuple (schemas 5 and 8).
 * The instance's past is the log's (schema 14): a captured body never carries `past`.
 */
export function packBody(state: InstanceState): CheckpointBody {
  const scopes = packScopes(state.scopes.values(), state.tracks);
  const bodies = new Set<string>();
  for (const entry of scopes) if (typeof entry === 'string') bodies.add(entry);
  return {
    instance: state.instance,
    scopes,
    tracks: packTracks(state.tracks.values(), bodies, state.scopes, state.userTasks),
    jobs: [...state.jobs.values()],
    userTasks: packUserTasks(state.userTasks.values(), state.tracks),
    incidents: [...state.incidents.values()],
    timers: [...state.timers.values()],
    subscriptions: [...state.subscriptions.values()],
    outbox: state.outbox,
    touchpoints: state.touchpoints,
    ...(state.conditions.size > 0 ? { conditions: [...state.conditions.values()] } : {}),
  };
}

/** The whole records a document's body stands for, packed entries built again in their places. */
export function unpackBody(body: CheckpointBody): InstanceRecords {
  const scopes = unpackScopes(body.scopes, body.tracks);
  return { ...body, scopes, ...unpackWaits(body.tracks, body.userTasks, scopes) };
}

/**
 * The state a document holds: its digest checked, an older schema migrated, a future one refused.
 * `where` names the instance and seq for errors.
 */
export function openState(bytes: Uint8Array, where: StoredAt): InstanceState {
  return stateOf(openCheckpoint(bytes, where).body, where);
}

/** The state a document's body holds; `where` names the instance and seq for errors. */
function stateOf(body: CheckpointBody, where: StoredAt): InstanceState {
  try {
    return new InstanceState(unpackBody(body));
  } catch (error) {
    // A record the document's own records cannot account for (a body path naming no looping activity).
    if (!(error instanceof InvalidStateError)) throw error;
    throw new CorruptCheckpointError(where.instanceId, where.seq, error.message, { cause: error });
  }
}

/** A stored checkpoint's state, checked against what its row says (instance, seq, schema column). */
export function openStored(stored: StoredCheckpoint): InstanceState {
  return openState(stored.bytes, { instanceId: stored.instanceId, seq: stored.seq, schema: stored.schema });
}

/** The journal filed against a stored checkpoint, decoded; an unreadable entry is corruption, named. */
export function journalOf(stored: StoredCheckpoint): JournalEntry[] {
  const { instanceId, seq } = stored;
  return stored.writes.map((write) =>
    decodeJournalEntry(write.value, { instanceId, seq, taskId: write.taskId, index: write.index }),
  );
}

/**
 * A stored instance brought back: its state, the process it is pinned to, the journal to apply, and what the
 * step that wrote the checkpoint published (to publish again when its holder may have stopped first): its log
 * entry's events, or those an older document kept in its body.
 */
export interface Restored {
  state: InstanceState;
  process: ProcessDef;
  journal: JournalEntry[];
  /** Opened only when asked: a restore republishes only what a holder that stopped may not have. */
  published(): { capturedAt: number; events: StoredEvent[] };
}

/**
 * Restore a stored checkpoint: open its document, find the process its instance is pinned to, and check
 * the journal filed against it before any of it is applied.
 */
export async function restore(
  stored: StoredCheckpoint,
  pinnedProcess: (state: InstanceState) => Promise<ProcessDef>,
): Promise<Restored> {
  const where = { instanceId: stored.instanceId, seq: stored.seq, schema: stored.schema };
  const document = openCheckpoint(stored.bytes, where);
  const state = stateOf(document.body, where);
  const entries = journalOf(stored);
  const process = await pinnedProcess(state);
  const journal = checkJournal(process, state, entries);
  // What an older document kept in its body, taken now: moving its past to the log leaves the state without it.
  const bodyEvents = state.past?.events;
  const published = () => {
    const log = logOf(stored);
    return {
      capturedAt: log?.capturedAt ?? document.capturedAt,
      events: storedOfCheckpoint(stored.seq, log?.events ?? bodyEvents),
    };
  };
  return { state, process, journal, published };
}

/** The log entry filed with a stored checkpoint, opened; undefined when its put filed none. */
export function logOf(stored: StoredCheckpoint): StepLog | undefined {
  return stored.log === undefined
    ? undefined
    : openStepLog(stored.log, { instanceId: stored.instanceId, seq: stored.seq });
}

/**
 * Check the journal recovered with a checkpoint before any of it is applied (seed 001): each result must
 * match its receipt, and each receipt must belong to a job of this checkpoint whose identity is still what
 * the pinned definition, the job's position and its inputs derive. Anything else fails closed with
 * `StaleReceiptError`; entries written before receipts existed (no `receipt`) are applied as they are.
 */
export function checkJournal(process: ProcessDef, state: InstanceState, entries: JournalEntry[]): JournalEntry[] {
  const instanceId = state.instance.id;
  for (const entry of entries) {
    const job: JobRecord | undefined = state.jobs.get(entry.jobId);
    const refuse = (reason: string): never => {
      throw new StaleReceiptError(instanceId, entry.jobId, job?.nodeId ?? null, reason);
    };
    if (!job) refuse('the checkpoint it is filed against has no such job');
    const receipt = entry.receipt as JournalEntry['receipt'] | undefined;
    if (receipt === undefined) continue;
    if (!receiptMatches(receipt, entry.result)) refuse('the stored result does not match its receipt');
    if (receipt.identity !== job!.identity) refuse('the receipt was issued for another invocation');
    const { listener, taskListener } = job!;
    const source = jobSourceOf(process, job!);
    // A type given as `=expr` was evaluated when the job was created: the job's record holds it.
    if (!source || (!source.typeExpression && source.taskType !== job!.taskType)) {
      const kind = listener
        ? `${listener.eventType} listener`
        : taskListener
          ? `${taskListener.eventType} task listener`
          : 'job';
      refuse(`the pinned definition has no ${kind} "${job!.nodeId}" of type "${job!.taskType}"`);
    }
    const track = state.tracks.get(job!.trackId);
    if (!track || track.nodeId !== job!.nodeId) refuse('its track is no longer at the step');
    if (
      job!.inputDigest !== null &&
      invocationIdentity(state.instance, track!, job!.inputDigest, listenerKey(job!)) !== receipt.identity
    ) {
      refuse('its identity is not what the pinned definition and its inputs derive');
    }
  }
  return entries;
}
