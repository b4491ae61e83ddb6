/**
 * What a checkpoint body holds besides an instance's scopes, tracks, jobs and user tasks (`types.ts`): its
 * incidents, what it did (history, decisions), its waits and outbox, and the body, document and journal entry
 * themselves.
 */
import type { InstanceRecord, JobRecord, ScopeRecord, TrackRecord, UserTaskRecord, Value, Variables } from './types.js';

export interface IncidentRecord {
  id: string;
  trackId: string;
  nodeId: string;
  /** Set when the incident came from a job whose retries ran out. */
  jobId: string | null;
  /**
   * `uncaught-error` (schema 3): a BPMN error no boundary or event sub-process caught. `call-failed`
   * (schema 5): a call activity's child could not be started, or ended without completing.
   */
  kind:
    | 'job-failed'
    | 'no-flow-taken'
    | 'expression-failed'
    | 'mapping-failed'
    | 'uncaught-error'
    | 'call-failed'
    /** The run went past the engine's step limit without waiting (a loop that never waits). @since schema 9 */
    | 'step-limit'
    /** A business rule task's decision could not be found or evaluated. @since schema 10 */
    | 'decision-failed';
  /**
   * Where a retry picks up: re-run the element (`enter`), or retry leaving it (`leave`); jobs re-dispatch; `task`
   * (schema 11): run the user task's transition under way again from its first task listener.
   */
  resume: 'enter' | 'leave' | 'job' | 'task';
  message: string;
  raisedAt: number;
}

/** One completed element, for history and for comparing end states. */
export interface HistoryEntry {
  node: string;
  scope: string;
  /** The track that completed it; for an event sub-process, which has no track, the path of its scope. */
  track: string;
}

/**
 * One evaluation of a business rule task's decision, as Operate shows it: what was called, the decisions
 * evaluated (required ones first, the called one last) with their inputs, matched rules and outputs, and the
 * result or why there is none. Values are variable values (plain data). @since schema 10
 */
export interface DecisionRecord {
  /** The business rule task. */
  node: string;
  track: string;
  decisionId: string;
  decisionName: string;
  /** The decision's version: its place among the deployed versions of its id, 1 first. */
  version: number;
  versionTag?: string;
  /** The DMN deployment it came from (definitions id and digest). */
  definitionId: string;
  digest: string;
  evaluatedAt: number;
  evaluated: EvaluatedDecisionRecord[];
  /** The called decision's result, as the task's result variable gets it; absent when it failed. */
  result?: Value;
  /** Why it failed (the incident's message); absent when it was decided. */
  failure?: string;
}

/** One decision of an evaluation, required or called. @since schema 10 */
export interface EvaluatedDecisionRecord {
  decisionId: string;
  decisionName: string;
  /** `decisionTable`, `literalExpression`, … */
  decisionType: string;
  inputs: { id: string; name: string; value: Value }[];
  matchedRules: { ruleId: string; ruleIndex: number; outputs: { id: string; name: string; value: Value }[] }[];
  output: Value;
}

/**
 * Who a timer or subscription wakes: a track waiting at a catch event or receive task; a track waiting at an
 * event-based gateway (the catch event `target` wins); a boundary event attached to a track's activity; or
 * the start event of an event sub-process of an open scope.
 */
export type WaitOwner =
  | { kind: 'track'; trackId: string }
  | { kind: 'gateway'; trackId: string; target: string }
  | { kind: 'boundary'; trackId: string; nodeId: string }
  | { kind: 'eventSubProcess'; scopePath: string; nodeId: string };

/**
 * A conditional event that waits (an intermediate catch, a boundary event, an event sub-process start): its
 * condition is checked after every step, and `holding` is what the last check found, so a non-interrupting
 * one fires once each time its condition turns true, not on every step while it stays true. @since schema 10
 */
export interface ConditionRecord {
  id: string;
  /** The conditional event. */
  nodeId: string;
  owner: WaitOwner;
  holding: boolean;
  /**
   * With a `zeebe:conditionalFilter`: the digest of each filtered variable at the last check (absent ones
   * not listed), to tell a step that created or updated one from a step that did not.
   */
  seen?: Record<string, string>;
}

/** A timer: absolute due time, and what is left of its cycle. @since schema 3 */
export interface TimerRecord {
  id: string;
  /** The catch, boundary or start event whose timer this is. */
  nodeId: string;
  owner: WaitOwner;
  /** Epoch ms. */
  dueAt: number;
  /** A repeating timer: the interval and the repetitions left after this one (null: forever). */
  cycle: { intervalMs: number; remaining: number | null } | null;
}

/** A message or signal subscription. @since schema 3 */
export interface SubscriptionRecord {
  id: string;
  kind: 'message' | 'signal';
  /** The event that subscribed. */
  nodeId: string;
  owner: WaitOwner;
  name: string;
  /** A message's correlation key; null for signals. */
  correlationKey: string | null;
}

/**
 * An effect on other instances recorded with the step that made it (a thrown signal), delivered after the
 * step is durable and removed once delivered; a restore delivers what is left again. @since schema 3
 */
export type OutboxEntry =
  | {
      /** Stable across a re-run of the step: receivers take each id once. */
      id: string;
      kind: 'signal';
      name: string;
      variables: Variables;
    }
  | {
      id: string;
      /** The next occurrence of a timer start event's cycle: an instance waiting at it. */
      kind: 'start';
      startNode: string;
      dueAt: number;
      cycle: TimerRecord['cycle'];
      /** Which occurrence of the cycle it is (the first instance is 0). */
      occurrence: number;
    }
  | CallOutboxEntry;

/**
 * What a call activity sends between a parent and its called child, in the sender's outbox (@since schema 5):
 * the parent starts (`call`) and cancels (`cancelChild`) the child; the child tells the parent how it ended or
 * what it threw (`toParent`). Each is delivered at least once and taken once by its id.
 */
export type CallOutboxEntry =
  | {
      /** Deterministic from the caller's step, so a retried start finds the child it started. */
      id: string;
      kind: 'call';
      childId: string;
      /** The called process id, as `calledElement` evaluated. */
      processId: string;
      binding: { kind: 'latest' } | { kind: 'deployment' } | { kind: 'versionTag'; versionTag: string };
      /** The child's starting variables, as the call's propagation and input mappings gave them. */
      variables: Variables;
      callNodeId: string;
      callerTrack: string;
    }
  | { id: string; kind: 'cancelChild'; childId: string }
  | { id: string; kind: 'toParent'; parentId: string; outcome: CallOutcome };

/** How a called child ended, or what it threw, as its parent is told. @since schema 5 */
export type CallOutcome =
  /** The child completed (a terminate end event in its root scope completes it too, as in Zeebe). */
  | { status: 'completed'; variables: Variables }
  /** The child was cancelled without its parent asking. */
  | { status: 'terminated' }
  /** A BPMN error or escalation the child did not catch: the call activity throws it in the parent. */
  | { status: 'error' | 'escalation'; code: string; variables: Variables };

/**
 * A track its body derives but for its id, written `<id>@<scopePath>` (a track id has no `@`): it waits on
 * its user task (the one naming it), at the body's element, entered once, with nothing local and no result.
 * A parallel group of a thousand bodies waiting on their user tasks costs a thousand short strings.
 * @since schema 8
 */
export type PackedTrack = string;

/** A user task without candidate lists, its element the one its track is at. @since schema 8 */
export type PackedUserTask = [
  id: string,
  trackId: string,
  createdAt: number,
  name: string | null,
  assignee: string | null,
];

/** An event as the log keeps it (`StepLog.events`): its id, its type and its own fields. */
export interface StepEvent {
  id: string;
  type: string;
  [field: string]: Value;
}

export interface CheckpointBody {
  instance: InstanceRecord;
  /**
   * Open scopes in the order they were opened. A multi-instance or loop body whose record its host derives
   * whole (nothing written into it yet) is written as its path alone: a parallel group of a thousand bodies
   * costs a thousand short strings, not a thousand records. @since schema 5
   */
  scopes: (ScopeRecord | string)[];
  /**
   * Tracks in the order they were made. One waiting on its user task inside a body written as its path is
   * written as a {@link PackedTrack}. @since schema 8 (records only before)
   */
  tracks: (TrackRecord | PackedTrack)[];
  jobs: JobRecord[];
  /** User tasks in the order they were created; one without candidate lists as a {@link PackedUserTask}. @since schema 8 */
  userTasks: (UserTaskRecord | PackedUserTask)[];
  incidents: IncidentRecord[];
  /** @since schema 3 */
  timers: TimerRecord[];
  /** @since schema 3 */
  subscriptions: SubscriptionRecord[];
  /** @since schema 3 */
  outbox: OutboxEntry[];
  /**
   * Each touchpoint's progress, by its index in the process's touchpoint list; null for an instance started
   * before touchpoints were tracked (it is not tracked). @since schema 7
   */
  touchpoints: TouchpointRecord[] | null;
  /** Conditional boundary and event sub-process start events waiting; absent while there are none. @since schema 10 */
  conditions?: ConditionRecord[];
  /**
   * What a document of schema 13 or older kept of the instance's past, which schema 14 keeps in the log
   * (`StepLog`): the engine writes it into the log with the instance's next step, and a checkpoint written
   * since has none. Absent in every document the engine writes. @since schema 14
   */
  past?: PastRecords;
}

/**
 * The past an older document carried in its body (schemas up to 13), moved aside by the migration to schema 14:
 * every element the instance completed and every decision it evaluated, in order, and the events of the step
 * that wrote the document (published again by an engine that takes the instance over). @since schema 14
 */
export interface PastRecords {
  history: HistoryEntry[];
  decisions?: DecisionRecord[];
  events?: (StepEvent | string)[];
}

/** How far a touchpoint has come in one instance (engine README § Touchpoints). @since schema 7 */
export interface TouchpointRecord {
  state: 'ahead' | 'now' | 'cleared' | 'timed_out' | 'failed' | 'skipped' | 'not_reached';
  /** Asks: a re-ask after a pause is the same attempt; a retry or a loop pass a new one. */
  attempts: number;
  /** Pauses (incidents) the current attempt went through. */
  pauses: number;
  /** Updates published of this touchpoint. */
  revision: number;
  askedAt: number | null;
  answeredAt: number | null;
  /** Seconds from the ask to the answer, pauses excluded. */
  responseS: number | null;
  /** Questions open now: parallel bodies each ask their own. */
  open: number;
  /** When the open question was paused (an incident); null when it is not. */
  pausedAt: number | null;
  /** Paused time of the current attempt so far, in ms. */
  pausedMs: number;
}

/** The durable document of one instance at one seq. */
export interface CheckpointDocument {
  schema: number;
  instanceId: string;
  seq: number;
  parentSeq: number | null;
  definitionDigest: string;
  capturedAt: number;
  body: CheckpointBody;
  /** sha256 over the canonical encoding of every other field. */
  digest: string;
}

/** A completed step's receipt: binds the step identity to its result by digest only (seed 001). */
export interface ResultReceipt {
  identity: string;
  resultDigest: string;
  resultBytes: number;
}

/** A journal entry: a completed job's result, filed against the checkpoint it completed after. */
export interface JournalEntry {
  jobId: string;
  result: Variables;
  receipt: ResultReceipt;
}
