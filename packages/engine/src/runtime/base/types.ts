/**
 * What the runtime hands to and takes from the engine's callers: handlers and their jobs, views of
 * instances and user tasks, what `settled` reports, deliveries, rollbacks and workers. Re-exported by
 * `api-types.ts`.
 *
 * @module
 */
import type {
  EvaluatedDecisionRecord,
  FlowEntry,
  HistoryEntry,
  IncidentRecord,
  InstanceStatus,
  UserTaskEvent,
  Variables,
} from '@thresher/checkpoint';
import type { ListenerEventName } from '../../common/events.js';
import type { LiveTouchpoint } from '../../common/touchpoint-types.js';
import type { UserTaskDenial, UserTaskFieldsView } from '../../common/user-task-types.js';
import type { ModelWarning } from '../../model/types.js';

/** What a handler receives: a job of a service or send task, a message throw, or an execution listener. */
export interface Job {
  /** The job record id, unique within its instance. */
  id: string;
  instanceId: string;
  /** The element being executed. */
  elementId: string;
  elementName: string | null;
  taskType: string;
  /** The element's `zeebe:taskHeaders` (static key / value pairs), `{}` when it has none. */
  headers: Record<string, string>;
  /** Every variable visible to the task, its input mappings applied. */
  variables: Variables;
  /**
   * The step identity: stable across retries and restarts of the same invocation. Pass it to the
   * outside world as an idempotency key; at-least-once delivery means a handler may see it twice.
   */
  /**
   * The W3C `traceparent` of the job's span, when an OpenTelemetry SDK traces the instance: pass it on (or use
   * the active context, which the handler runs in) so the handler's own calls join the instance's trace.
   */
  traceContext?: string;
  idempotencyKey: string;
  /** 1 for the first try, then one more for every later try, including those after `retryIncident`. */
  attempt: number;
  businessKey: string | null;
  /**
   * Set on an execution listener's job (`zeebe:executionListener`): the event it runs at — `start` before its
   * element does its work, `end` before it leaves (a process's own: before its start event, after its last
   * element). Its `taskType` is the listener's `type`; `elementId` the element (or the process) it listens to.
   * Absent on every other job.
   */
  listener?: { eventType: ListenerEventName };
  /**
   * Set on a task listener's job (`zeebe:taskListener`, whose `listener.eventType` is `creating`, `assigning`,
   * `updating`, `completing` or `canceling`): the user task as it stands in the transition, corrections of the listeners
   * before included. Its handler returns a `TaskListenerResult`, never variables. Absent on every other job.
   */
  userTask?: TaskListenerJobTask;
}

/** What `engine.updateUserTask` may change; null or '' clears a field. */
export type UserTaskChanges = Omit<NonNullable<TaskListenerResult['corrections']>, 'assignee'>;

/** The user task a task listener's job runs for. */
export interface TaskListenerJobTask extends UserTaskFieldsView {
  /** `<instanceId>/<taskId>`, as `engine.completeUserTask` takes it. */
  id: string;
  /** What asked for the transition: `assign`, `unassign`, `update`, `complete`, a caller's own word; '' for the engine. */
  action: string;
  /** The fields the transition changed so far (the listeners' corrections too), alphabetically. */
  changedAttributes: string[];
}

/**
 * What a task listener's handler returns (nothing: allow the transition as it stands). `corrections` set
 * fields of the task (null or '' clears one; the listeners after it see them); `denied: true` refuses the
 * transition (assigning, updating, completing), leaving the task as it was — never both at once, as in Zeebe.
 */
export interface TaskListenerResult {
  denied?: boolean;
  deniedReason?: string;
  corrections?: Partial<UserTaskFieldsView>;
}

/**
 * A job's handler: returns the variables it produces (or nothing) — a task listener's, a `TaskListenerResult`.
 * Throwing fails the attempt.
 */
export type Handler = (
  job: Job,
) => Promise<Variables | TaskListenerResult | undefined | void> | Variables | TaskListenerResult | undefined | void;

/** Handlers by task type (`zeebe:taskDefinition type`, else the element id). */
export type Handlers = Record<string, Handler>;

export interface UserTaskView extends UserTaskFieldsView {
  id: string;
  instanceId: string;
  elementId: string;
  /** The activation of the task's element (`<scope>:<element>:<attempt>`), as `InstanceView.elementInstances` names it. */
  elementInstanceId: string;
  name: string | null;
  /** Variables visible to the task, its input mappings applied. */
  variables: Variables;
  createdAt: number;
  /** The task's `zeebe:taskHeaders`, `{}` when it has none. */
  headers: Record<string, string>;
  /**
   * `created` when it can be assigned, updated or completed; else the transition whose task listeners are
   * running (`creating`, `assigning`, `updating`, `completing`), which refuses another until it ends.
   */
  state: 'created' | UserTaskEvent;
  /**
   * How many transitions (assignments, updates, completions, denied ones too) the task began: a caller that
   * lost track of a command (a crash) tells by it whether the command landed.
   */
  revision: number;
  /** The last transition a task listener denied (until the next one begins), and why; null when none was. */
  denied: UserTaskDenial | null;
}

/** A job an instance has open (`InstanceView.jobs`). */
export interface OpenJobView {
  /** As `completeJob` and the other worker commands name it. */
  id: string;
  elementId: string;
  /** The activation it runs for (`<scope>:<element>:<attempt>`). */
  elementInstanceId: string;
  taskType: string;
  retries: number;
  /** Failed attempts so far, and the last one's message. */
  failures: number;
  lastError: string | null;
  /** Its element's headers (a listener's own over them); empty when its deployment is not at hand. */
  headers: Record<string, string>;
  /** An execution or task listener's job: the event it runs at. */
  listener?: { kind: 'execution' | 'task'; eventType: ListenerEventName };
}

/** One live activation of an element (`InstanceView.elementInstances`). */
export interface ElementInstanceView {
  id: string;
  elementId: string;
  trackId: string;
}

/** A message or signal an instance waits for: the element waiting, and what correlates to it. */
export interface SubscriptionView {
  /** Its id within the instance (`w3`). */
  id: string;
  elementId: string;
  kind: 'message' | 'signal';
  name: string;
  /** A message's correlation key; null for a signal. */
  correlationKey: string | null;
  /** The track waiting on it (at the catch event, the gateway, or the activity a boundary event is on); null for an event sub-process's start. */
  trackId: string | null;
}

/** A running ad-hoc sub-process, as `instance(id).adHocSubProcesses` shows it. */
export interface AdHocView {
  /** `<instanceId>/<id>`, as `engine.activateAdHocElements` takes it. */
  id: string;
  elementId: string;
  /** The elements an activation may start at (those without incoming flows). */
  activatable: { elementId: string; elementName: string | null }[];
  /** The element each running activation started at, in the order they began. */
  active: string[];
  /** How many activations it began: a caller that lost track of an activation (it crashed) tells by it whether it landed. */
  activations: number;
  /** Its completion condition was met: it completes once its remaining activations are done, and takes no more. */
  done: boolean;
}

export interface InstanceView {
  id: string;
  processId: string;
  definitionId: string;
  version: number;
  digest: string;
  status: InstanceStatus;
  businessKey: string | null;
  /** A called child's parent instance and the call activity that started it; null for a root. */
  parentId: string | null;
  callNodeId: string | null;
  /** The children its call activities wait on now. */
  calls: CallView[];
  /** The root scope's variables. */
  variables: Variables;
  /** Variables of every open scope by path (`/`, `/sub_1`). */
  scopes: Record<string, Variables>;
  /** Elements where live tracks are (waiting or about to move). */
  activeElements: string[];
  /**
   * The element activations live tracks are in: each one's id (`<scope>:<element>:<attempt>`, unique in the
   * instance, as `track.entered` and `track.left` name it), its element, and the track in it.
   */
  elementInstances: ElementInstanceView[];
  incidents: IncidentRecord[];
  /** Open user tasks (reading them restores nothing and dispatches nothing). */
  userTasks: UserTaskView[];
  /** Its open jobs: dispatched and not yet completed (waiting for a handler or a worker, or on an incident). */
  jobs: OpenJobView[];
  /** Running ad-hoc sub-processes, each with what it can activate and what runs. */
  adHocSubProcesses: AdHocView[];
  /** The messages and signals it waits for now, each with the element waiting (what a caller can send it). */
  subscriptions: SubscriptionView[];
  /** Ids of the messages and signals it has taken (the latest 1,000). */
  received: string[];
  /** Completed elements in order, from the instance's log. */
  history: HistoryEntry[];
  /** Sequence flows taken in order, each with the scope it was taken in, from the instance's log. */
  flows: FlowEntry[];
  /** Its business rule tasks' decision evaluations, in order (what Operate shows). */
  decisions: DecisionEvaluationView[];
  startedAt: number;
  endedAt: number | null;
  seq: number;
  /** Its touchpoints as they stand; null when not tracked (started before schema 7) or its deployment is not here. */
  touchpoints: LiveTouchpoint[] | null;
  /**
   * Elements entered more often than the engine's `loopWarning` in one activation of an open scope: loops to
   * look at (a warning, not an incident), most turns first.
   */
  looping: LoopingView[];
}

/** An element an instance keeps entering in one scope activation, past the engine's `loopWarning`. */
export interface LoopingView {
  elementId: string;
  scope: string;
  turns: number;
  threshold: number;
}

/**
 * A decision evaluated on its own (`engine.evaluateDecision`): which version of it, every decision evaluated (its
 * requirements first, the called one last), and its result — or why it failed (Zeebe's wording).
 */
export type DecisionOutcome = Omit<DecisionEvaluationView, 'elementId' | 'evaluatedAt'>;

/** One evaluation of a business rule task's decision: what was called, what was decided, and from what. */
export interface DecisionEvaluationView {
  /** The business rule task. */
  elementId: string;
  decisionId: string;
  decisionName: string;
  version: number;
  versionTag?: string;
  /** The DMN deployment it came from: its definitions id and digest. */
  definitionId: string;
  digest: string;
  evaluatedAt: number;
  /** The result the task's result variable got; absent when the evaluation failed. */
  result?: unknown;
  /** Why it failed (the incident's message); absent when it was decided. */
  failure?: string;
  /** Each decision evaluated, required ones first and the called one last: inputs, matched rules, outputs. */
  evaluated: EvaluatedDecisionRecord[];
}

/** A call activity waiting on the instance it called. */
export interface CallView {
  elementId: string;
  instanceId: string;
}

export interface CorrelateOptions {
  /** The key a subscription's `zeebe:subscription correlationKey` evaluated to (numbers are compared as text). */
  correlationKey?: string | number | null;
  variables?: Variables;
  /**
   * Delivering a message with the same id to the same instance again changes nothing (a retry after a crash).
   * A buffered message is stored under this id (a random UUID when absent): sending it again while it is
   * buffered keeps one copy.
   */
  messageId?: string;
  /**
   * How long, in ms, a message that nothing takes now is kept for the first instance to subscribe to its name
   * and key. Default 0: not buffered — a message nothing takes is reported (`correlated: false`) and dropped.
   * Must be finite and not negative (`RangeError`).
   */
  timeToLive?: number;
}

export interface CorrelateResult {
  correlated: boolean;
  /**
   * True when no instance took the message and it was kept in the store's buffer (for `timeToLive` ms, or handed to
   * another engine's instance): `correlated` is then false. Absent otherwise.
   */
  buffered?: boolean;
  /** The first instance that took the message (by instance id, or started by it); null when none did. */
  instanceId: string | null;
  /** Every instance that took it: at most one per BPMN process id, as Zeebe correlates. */
  instanceIds: string[];
  /**
   * A waiting instance another engine holds, to which the message was handed over through the store's buffer: its
   * holder takes it on its next look. Absent otherwise.
   */
  heldElsewhere?: string;
}

export interface SignalOptions {
  variables?: Variables;
  /** Delivering a signal with the same id to the same instance again changes nothing. */
  signalId?: string;
}

/** What `engine.rollback` did: the head it stepped over, the checkpoint it went back to, and the new head. */
export interface RollbackResult {
  instanceId: string;
  /** The head before the rollback (left in place, as history). */
  from: number;
  /** The good checkpoint whose state is the new head. */
  to: number;
  /** The new head's seq. */
  seq: number;
}

/** What `engine.startWorker()` takes. */
export interface WorkerOptions {
  /** At most this many instances at work in this engine at once; default 16. */
  concurrency?: number;
  /** How often, in ms of the engine's clock, an idle worker looks at the store for work; default 1000. */
  pollMs?: number;
}

/** What a worker did since it started. */
export interface WorkerCounts {
  /** Instances it took up: left behind by an engine that stopped renewing, or out of memory with a due timer. */
  claimed: number;
  /** Instances that ended in this engine. */
  completed: number;
  /** Instances let go of when they parked (out of memory, lease released). */
  released: number;
  /** Instances another engine took over (this one stopped renewing in time): nothing more was done with them here. */
  lost: number;
  /** Instances it found but could not restore (each reported through `onFault`). */
  failed: number;
  /** Instances in memory now: at work, or being restored. */
  atWork: number;
}

/** What `engine.recover()` did. */
export interface RecoverReport {
  /** Instances restored and running again. */
  restored: string[];
  /** Instances that could not be restored, with why; the others went on. */
  failed: { instanceId: string; error: Error }[];
}

/** What `deploy` reports: the deployment a file became (a new version, or the one it already was). */
export interface DeployResult {
  /** A BPMN file (processes), a DMN file (decisions), told apart by namespace, or a Camunda form (JSON). */
  kind: 'bpmn' | 'dmn' | 'form';
  definitionId: string;
  version: number;
  digest: string;
  /** Ids of the executable processes in the deployment (none for DMN). */
  processes: string[];
  /** The decisions of a DMN deployment, each with the version this deployment gives it (none for BPMN). */
  decisions: DeployedDecision[];
  /** What the compiler noted but does not stop the model (ignored extensions, dangling diagram shapes…). */
  warnings: ModelWarning[];
}

/** A decision a DMN deployment holds. */
export interface DeployedDecision {
  id: string;
  name: string;
  /** Its place among the deployed versions of its id, 1 first. */
  version: number;
  versionTag?: string;
}

/** How `engine.start` starts an instance. */
export interface StartOptions {
  variables?: Variables;
  businessKey?: string;
  /** Start the process of this deployment digest; by default the latest version deployed. */
  digest?: string;
  /**
   * The caller's W3C `traceparent` (`00-<trace id>-<span id>-<flags>`): the instance's spans join that trace.
   * Kept in the instance's record, so the instance continues the trace wherever it is restored.
   */
  traceContext?: string;
}
