/**
 * The checkpoint document: the records of one instance at one seq (docs/architecture.md §3, §6).
 * These records are the engine's runtime state; there is no second representation.
 */

/** A JSON-like value as the engine holds it in variables; the codec also carries what JSON cannot. */
export type Value = unknown;

/** Variables of one scope, by name. */
export type Variables = Record<string, Value>;

export const InstanceStatus = {
  Running: 'running',
  Completed: 'completed',
  Terminated: 'terminated',
} as const;
export type InstanceStatus = (typeof InstanceStatus)[keyof typeof InstanceStatus];

export interface DefinitionRef {
  /** The `bpmn:definitions` id (or the process id when the file has none). */
  id: string;
  version: number;
  /** sha256 of the canonical compiled model; the instance is pinned to it. */
  digest: string;
}

export interface InstanceRecord {
  id: string;
  processId: string;
  definition: DefinitionRef;
  status: InstanceStatus;
  businessKey: string | null;
  /** Set for a called child (Call Activity); null for a root instance. */
  parentId: string | null;
  callNodeId: string | null;
  /** A called child: the parent's track waiting at the call activity. @since schema 5 */
  callerTrack?: string;
  /** Epoch ms, from the engine's clock. */
  startedAt: number;
  endedAt: number | null;
  /** Source of the instance's next local id (tracks, jobs, incidents); keeps ids deterministic. */
  nextId: number;
  /**
   * Ids of the messages and signals this instance has taken, so delivering one again (a retry after a crash)
   * changes nothing. @since schema 3
   */
  receivedIds: string[];
  /**
   * A run that yielded before its tracks all waited (it made many element moves in one go): the tracks still
   * to move, in the order they move, and how many element moves the run has made since it last waited. The
   * engine takes it up again at once (after other work had its turn), and raises a `step-limit` incident on
   * those tracks when the run goes past the engine's limit. @since schema 9
   */
  drain?: { agenda: string[]; moves: number };
  /**
   * The W3C trace context (`traceparent`) the instance's spans belong to: the caller's when it was started with
   * one, else the instance's own root span's. Kept so an instance restored elsewhere continues the same trace.
   * Absent when no tracer was registered at its start. @since schema 12
   */
  traceContext?: string;
}

export interface ScopeRecord {
  /** `/` for the process, `/sub_1` for an embedded sub-process activation (docs/architecture.md §3). */
  path: string;
  /** The element hosting the scope: the process id for `/`, else the sub-process id. */
  nodeId: string;
  /** The track parked on the host element; null for the root scope. */
  hostTrack: string | null;
  parentPath: string | null;
  /** The scope machine's state value. */
  state: string;
  data: Variables;
  /** How many times each element was entered in this scope: a track's `attempt` comes from it. */
  visits: Record<string, number>;
  /**
   * The completed compensable activities of this scope, in completion order, each with the data its
   * compensation handler will read; absent while there are none. @since schema 6
   */
  ledger?: LedgerEntry[];
  /**
   * An ad-hoc sub-process's scope: how many activations it began (each runs in a scope of its own), and
   * `done` once its completion condition was met (or its last activation completed without one). @since schema 11
   */
  adHoc?: { activations: number; done?: true };
  /**
   * One activation of an ad-hoc sub-process's element (the element it activated): a scope inside the ad-hoc
   * sub-process's, whose new variables stay in it. @since schema 11
   */
  activation?: string;
}

/**
 * A completed activity that can be compensated: its handler (null: a sub-process without one of its own,
 * whose `inner` entries are compensated instead), the variables its handler reads (as they were when it
 * completed), and, for a sub-process, the ledger it completed with. @since schema 6
 */
export interface LedgerEntry {
  nodeId: string;
  handler: string | null;
  data: Variables;
  inner?: LedgerEntry[];
}

/**
 * A compensation under way, kept on the track that threw it: the handlers still to run, in run order, and the
 * one running (its scope is hosted by the thrower). A transaction's cancel end event sweeps its transaction
 * and then finishes it through its cancel boundary (`transaction`: the transaction's host track). @since schema 6
 */
export interface SweepRecord {
  /** The sweep machine's state value (`queued`, `running`, then `done` or `cancelled`). */
  state: string;
  queue: LedgerEntry[];
  running: LedgerEntry | null;
  /** Handlers this sweep has started: each runs in a scope of its own (`<scope>/<handler>#n`). */
  runs: number;
  transaction: string | null;
}

/** What a parked track waits on. */
export type TrackWait =
  | { kind: 'job'; jobId: string }
  | { kind: 'userTask'; taskId: string }
  | { kind: 'scope'; path: string }
  | { kind: 'join' }
  | { kind: 'incident'; incidentId: string }
  /** A catch event, receive task or event-based gateway: its timers and subscriptions are its waits. @since schema 3 */
  | { kind: 'event' }
  /** A looping activity's host (multi-instance or standard loop): its bodies are scopes it hosts (`loop` holds its position). @since schema 4 */
  | { kind: 'loop' }
  /** A call activity: the called instance `childId` runs; its end (or its error, its escalation) comes back here. @since schema 5 */
  | { kind: 'call'; childId: string }
  /** A compensation throw (or a transaction's cancel end): its sweep runs the handlers (`sweep`). @since schema 6 */
  | { kind: 'sweep' }
  /**
   * What interrupted an element waits, held, while user tasks it terminated run their canceling listeners (the
   * tracks `on`), then goes on as `then` says. @since schema 11
   */
  | { kind: 'held'; on: string[]; then: HeldThen };

/**
 * How a held interrupter goes on once the terminations it waited for are done: a boundary event's track enters
 * it (`enter`); a scope's termination ends it (`terminate`: by the terminate end event `nodeId`, or '' for a
 * cancelled instance; its track a stand-in); an interrupting event sub-process starts (`eventSubProcess`, its
 * track a stand-in at its start event). @since schema 11
 */
export type HeldThen =
  | { kind: 'enter' }
  | { kind: 'terminate'; nodeId: string }
  | { kind: 'eventSubProcess'; startNode: string; variables: Variables };

/**
 * Where a looping activity is (multi-instance or standard loop), kept on its host track: how many bodies,
 * which opens next, how many completed, the outputs collected so far (by ordinal, so a parallel group's
 * holes are explicit and its outputs assemble in input order), and whether it is to stop (a completion
 * condition fired, or a loop condition no longer holds). The open bodies are the scopes the track hosts.
 * @since schema 4
 */
export interface LoopRecord {
  /** Multi-instance: `numberOfInstances`, frozen when the activity was entered; a standard loop: null. */
  n: number | null;
  /** The input collection as evaluated on entry (Zeebe evaluates it once); null with a cardinality. */
  items: Value[] | null;
  /**
   * The name a body sees its item by (`inputElement`), so a body's initial data is derivable from this record
   * alone; absent or null when the bodies get none. @since schema 5
   */
  element?: string | null;
  /**
   * The variable a multi-instance's `outputElement` names (`=result`, `=result.total`), which each body holds
   * as a local `null` from its start so that what it produces lands in it, as in Zeebe; absent when the output
   * element is no such reference, is the item or `loopCounter`, or the host was entered before schema 9.
   * @since schema 9
   */
  output?: string;
  /** The ordinal of the next body to open (sequential: one at a time; parallel: `n` once all are open). */
  next: number;
  /** `numberOfCompletedInstances`. */
  completed: number;
  /** `outputElement` of each completed body, by its 0-based ordinal (as a string key). */
  outputs: Record<string, Value>;
  /** No further body opens: a completion condition fired, or a standard loop's condition failed. */
  conditionMet: boolean;
}

export interface TrackRecord {
  id: string;
  scopePath: string;
  /** The element the track is at. */
  nodeId: string;
  /** The sequence flow it arrived by, if any (joins count arrivals per flow). */
  viaFlow: string | null;
  /** The track machine's state value. */
  state: string;
  /**
   * How many times this element was entered in this scope before this activation: loops, concurrent
   * tokens and re-entries after a cancellation are each a new invocation with its own step identity.
   */
  attempt: number;
  wait: TrackWait | null;
  /** Variables local to the element while it runs (its input mappings; a sub-process's data at its end). */
  locals: Variables | null;
  /** What the element produced (handler result, user-task variables, script value), applied when it leaves. */
  result: Variables | null;
  /** Set on the host track of a looping activity while it runs its bodies. @since schema 4 */
  loop?: LoopRecord;
  /** Set on a compensation thrower while its handlers run. @since schema 6 */
  sweep?: SweepRecord;
  /**
   * Where the track is in its element's execution listeners: set when the element's start listeners begin
   * and kept while the element runs (a retried incident picks up after them), replaced once its end
   * listeners begin, gone when it leaves. Absent at an element without listeners. @since schema 9
   */
  listening?: ListenerPosition;
}

/**
 * How far a track is in the execution listeners of one event of its element (`zeebe:executionListener`): how
 * many of them completed. A process's start listeners run on a track of their own, which also names the
 * start event it then goes on to. @since schema 9
 */
export interface ListenerPosition {
  eventType: 'start' | 'end';
  /** Listeners of the event that completed; the next to run is the one at this index. */
  done: number;
  /** On a process's start track: the start event the instance was started at, entered once the listeners ran. */
  startNode?: string;
}

export interface JobRecord {
  id: string;
  trackId: string;
  nodeId: string;
  taskType: string;
  /** Domain-separated digest of the invocation; handlers get it as their idempotency key. */
  identity: string;
  /**
   * `digestInputs` of the variables the job was dispatched with, so a restore can derive the identity
   * again and refuse a journal entry that no longer fits. Null in documents migrated from schema 1.
   * @since schema 2
   */
  inputDigest: string | null;
  /** Failed attempts so far. */
  failures: number;
  retriesLeft: number;
  /** Epoch ms before which the job must not be dispatched again (retry backoff); null when due now. */
  notBefore: number | null;
  lastError: string | null;
  /**
   * An execution listener's job (a job of its own kind, as in Zeebe): the event it runs at and its index
   * among that event's listeners of the element. Absent for the element's own job. @since schema 9
   */
  listener?: { eventType: 'start' | 'end'; index: number };
  /**
   * A task listener's job (`zeebe:taskListener`): the user task and event it runs at, and its index among that
   * event's listeners. Its track keeps waiting on the user task meanwhile. @since schema 11
   */
  taskListener?: { taskId: string; eventType: UserTaskEvent; index: number; round: number };
}

export interface UserTaskRecord {
  id: string;
  trackId: string;
  nodeId: string;
  name: string | null;
  assignee: string | null;
  /** `zeebe:assignmentDefinition candidateGroups`, evaluated at creation; absent when the model gives none. @since schema 4 */
  candidateGroups?: string[];
  /** `zeebe:assignmentDefinition candidateUsers`, evaluated at creation; absent when the model gives none. @since schema 4 */
  candidateUsers?: string[];
  createdAt: number;
  /** `zeebe:taskSchedule dueDate` (an ISO 8601 date-time), or as updated or corrected since; absent when none. @since schema 11 */
  dueDate?: string;
  /** `zeebe:taskSchedule followUpDate`, as `dueDate`. @since schema 11 */
  followUpDate?: string;
  /** `zeebe:priorityDefinition priority` (0–100), or as updated or corrected since; absent means 50. @since schema 11 */
  priority?: number;
  /** The lifecycle transition under way while its task listeners run; absent when none is. @since schema 11 */
  transition?: UserTaskTransition;
  /**
   * Transitions begun on the task (denied ones too): the last one's round is this less one, and each round's
   * listener jobs are invocations of their own. @since schema 11
   */
  transitions?: number;
  /** The last transition a task listener denied, until the next one begins: which, and why. @since schema 11 */
  denied?: { event: UserTaskEvent; reason: string | null };
}

/** The fields of a user task that can be assigned, updated or corrected by a task listener. @since schema 11 */
export interface UserTaskFields {
  assignee: string | null;
  candidateGroups?: string[];
  candidateUsers?: string[];
  dueDate?: string;
  followUpDate?: string;
  priority?: number;
}

/** A user task event its task listeners (`zeebe:taskListener`) run at (`canceling`: while it is terminated). @since schema 11 */
export type UserTaskEvent = 'creating' | 'assigning' | 'updating' | 'completing' | 'canceling';

/**
 * A user task's lifecycle transition while its task listeners run, one at a time (`zeebe:taskListener`, Camunda
 * 8.8). The task's fields already hold the transition's values (and the listeners' corrections); `before` holds
 * them as they were, which a denial restores. @since schema 11
 */
export interface UserTaskTransition {
  event: UserTaskEvent;
  /** What asked for it (`assign`, `unassign`, `update`, `complete`, or the caller's own word); '' for the engine. */
  action: string;
  /** The task's fields before the transition. */
  before: UserTaskFields;
  /** Its fields as the transition asked for them, before any correction: a retried incident starts again from them. */
  requested: UserTaskFields;
  /** Listeners of the event that completed; the next to run is the one at this index. */
  done: number;
  /** The job of the listener running now; absent while none is (its expression raised an incident). */
  jobId?: string;
  /** `completing`: the variables the completion carries, applied once every listener allowed it. */
  variables?: Variables;
  /** `creating`: the assignee the task is assigned to once created (through its assigning listeners). */
  assignee?: string;
}
