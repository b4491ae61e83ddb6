import type { CheckpointDocument } from './body-records.js';

/** One step of the checkpoint schema chain: a document of schema N in, the same document at N + 1 out. */
export type Migration = (document: Record<string, unknown>) => Record<string, unknown>;
type Body = Record<string, unknown> & { jobs?: Record<string, unknown>[] };

/**
 * Schema 1 → 2: jobs record the digest of their inputs. A schema-1 job's inputs are gone (its variables
 * may have changed since it was dispatched), so the digest is null: its identity is trusted as stored.
 */
export function schema1to2(document: Record<string, unknown>): Record<string, unknown> {
  const body = document.body as Body;
  return { ...document, body: { ...body, jobs: (body.jobs ?? []).map((job) => ({ ...job, inputDigest: null })) } };
}

/**
 * Schema 2 → 3: instances gain timers, message and signal subscriptions, an outbox of thrown signals, and
 * the ids of what they have received. A schema-2 document was written before any of these could exist, so
 * all start empty.
 */
export function schema2to3(document: Record<string, unknown>): Record<string, unknown> {
  const body = document.body as Body & { instance?: Record<string, unknown> };
  return {
    ...document,
    body: { ...body, instance: { ...body.instance, receivedIds: [] }, timers: [], subscriptions: [], outbox: [] },
  };
}

/**
 * Schema 3 → 4: tracks may carry a loop position (multi-instance, standard loop), and wait on their bodies.
 * A schema-3 document was never written with one in flight (the runtime refused them), so nothing changes.
 */
export function schema3to4(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 4 → 5: call activities run — tracks may wait on a called child, children name their caller track,
 * outboxes carry calls and their outcomes, and an incident may be a failed call. A schema-4 document was never
 * written with a call in flight (the runtime refused them), so nothing changes.
 */
export function schema4to5(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 5 → 6: scopes may keep a ledger of compensable activities, and throwers a compensation sweep. A
 * schema-5 document was never written with either (the compiler refused compensation), so nothing changes.
 */
export function schema5to6(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 6 → 7: instances track their touchpoints. A schema-6 instance was started without a plan, so it is
 * not tracked (`touchpoints: null`): it runs on as before and publishes no touchpoint events.
 */
export function schema6to7(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document, body: { ...(document.body as Body), touchpoints: null } };
}

/**
 * Schema 7 → 8: a track waiting on its user task in a body written as its path, and a user task without
 * candidate lists, may be written as tuples. A schema-7 document holds records only, which schema 8 still
 * reads, so nothing changes.
 */
export function schema7to8(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 8 → 9: a multi-instance host may name its output element's variable (`LoopRecord.output`), which
 * each body then holds as a local `null` from the start (as in Zeebe), so what a body produces stays in it; an
 * instance may hold a run that yielded half-way (`InstanceRecord.drain`: its tracks mid-move), and an incident
 * may be a `step-limit`. Execution listeners run: a track may be among its element's listeners
 * (`TrackRecord.listening`, the track's state `listening`; a process's or event sub-process's listeners on a
 * track at the container), a job may be a listener's (`JobRecord.listener`, which its step identity names),
 * and a process or event sub-process scope may be `ending` while its end listeners run. A schema-8 host names
 * none (its bodies run on as they started, without the local), and a schema-8 document was never written
 * half-way through a run, with that incident, nor with a listener (the compiler refused them), so nothing
 * changes.
 */
export function schema8to9(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 9 → 10: fields a schema-9 document never holds, each optional with its old meaning when absent: the
 * body's `decisions` (business rule tasks' evaluations) and the incident kind `decision-failed`. A schema-9
 * document was never written with a business rule task (the compiler refused them), so nothing changes.
 */
export function schema9to10(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 11 adds user task listeners (`JobRecord.taskListener`, `UserTaskRecord.transition`, the incident
 * resume `task`), a user task's `dueDate`, `followUpDate` and `priority`, and ad-hoc sub-processes
 * (`ScopeRecord.adHoc`, `ScopeRecord.activation`). A schema-10 document was never written with any of them
 * (the compiler refused task listeners and ad-hoc sub-processes, and ignored schedules and priorities).
 */
export function schema10to11(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 12 adds the step's events (`CheckpointBody.events`) and the instance's trace context
 * (`InstanceRecord.traceContext`), both optional: a schema-11 document announced nothing durably and joined no
 * trace, so it is a schema-12 document as it is.
 */
export function schema11to12(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 13 keeps a step's touchpoint events without what the process's touchpoint plan gives back:
 * `touchpoints.planned` without its list, `touchpoint.updated` with its touchpoint's `progress` in place of the
 * whole `touchpoint`. A schema-12 document keeps them whole, which schema 13 still reads (published as kept),
 * so nothing changes.
 */
export function schema12to13(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document };
}

/**
 * Schema 14 keeps an instance's past in the step log, not in its document: the body's `history` (every element
 * completed), `decisions` (every evaluation) and `events` (the step's) move aside into `past`, which the engine
 * writes into the log with the instance's next step (the events: published again if the instance is taken
 * over before then). A document whose past is empty gets none.
 */
export function schema13to14(document: Record<string, unknown>): Record<string, unknown> {
  const { history, decisions, events, ...body } = document.body as Body & {
    history?: unknown[];
    decisions?: unknown[];
    events?: unknown[];
  };
  const past = {
    history: history ?? [],
    ...(decisions !== undefined && decisions.length > 0 ? { decisions } : {}),
    ...(events !== undefined && events.length > 0 ? { events } : {}),
  };
  const empty = past.history.length === 0 && past.decisions === undefined && past.events === undefined;
  return { ...document, body: empty ? body : { ...body, past } };
}

/**
 * The migration chain: `MIGRATIONS[n - 1]` turns a schema-n document into schema n + 1. Append only; a
 * step is a pure function of the older document and never edited once released.
 */
export const MIGRATIONS: readonly Migration[] = [
  schema1to2,
  schema2to3,
  schema3to4,
  schema4to5,
  schema5to6,
  schema6to7,
  schema7to8,
  schema8to9,
  schema9to10,
  schema10to11,
  schema11to12,
  schema12to13,
  schema13to14,
];

/** Bring a document of `schema` up to the current one, step by step. */
export function migrateToCurrent(
  document: Record<string, unknown>,
  schema: number,
): CheckpointDocument & Record<string, unknown> {
  let current = document;
  for (let version = schema; version <= MIGRATIONS.length; version++) {
    const step = MIGRATIONS[version - 1]!;
    current = { ...step(current), schema: version + 1 };
  }
  return current as CheckpointDocument & Record<string, unknown>;
}
