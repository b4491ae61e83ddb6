/**
 * The compiled model: an immutable graph IR built once per deployment (docs/architecture.md §2).
 * The runtime reads only this; it never touches moddle elements.
 */

import type { JobRecord, UserTaskEvent } from '@thresher/checkpoint';
import type { Expression } from '../common/feel.js';
import type { TouchpointMark } from '../common/touchpoint-types.js';
import type { TimerSpec } from '../timers/schedule.js';

export type { Expression, TimerSpec };

/** Something a model says that Thresher notes but does not stop on (an ignored extension, a dangling diagram shape). */
export interface ModelWarning {
  message: string;
  elementId: string | null;
}

/** One `zeebe:input` / `zeebe:output`: evaluate `source`, assign to variable `target`. */
export interface Mapping {
  source: Expression;
  target: string;
}

export interface IoMapping {
  inputs: Mapping[];
  outputs: Mapping[];
}

export const NodeType = {
  StartEvent: 'startEvent',
  EndEvent: 'endEvent',
  TerminateEndEvent: 'terminateEndEvent',
  Task: 'task',
  ServiceTask: 'serviceTask',
  ScriptTask: 'scriptTask',
  UserTask: 'userTask',
  ManualTask: 'manualTask',
  ExclusiveGateway: 'exclusiveGateway',
  ParallelGateway: 'parallelGateway',
  InclusiveGateway: 'inclusiveGateway',
  SubProcess: 'subProcess',
  IntermediateCatchEvent: 'intermediateCatchEvent',
  IntermediateThrowEvent: 'intermediateThrowEvent',
  BoundaryEvent: 'boundaryEvent',
  ReceiveTask: 'receiveTask',
  SendTask: 'sendTask',
  EventBasedGateway: 'eventBasedGateway',
  CallActivity: 'callActivity',
  BusinessRuleTask: 'businessRuleTask',
} as const;
export type NodeType = (typeof NodeType)[keyof typeof NodeType];

/** A job's type or retries given as `=expr` (Zeebe's rule): evaluated when the job is created. */
export interface JobExpressions {
  /** Set when `zeebe:taskDefinition type` is an expression; `taskType` then holds its text. */
  typeExpression?: Expression;
  /** Set when `zeebe:taskDefinition retries` is an expression; `retries` is then undefined. */
  retriesExpression?: Expression;
}

/** What every node of a compiled process has. */
export interface NodeBase {
  id: string;
  name: string | null;
  /** The container (process id or sub-process id) the node sits in. */
  container: string;
  /** Incoming sequence-flow ids, in document order. */
  incoming: string[];
  /** Outgoing sequence-flow ids, in document order. */
  outgoing: string[];
  io: IoMapping;
  /**
   * How the activity repeats: set only when the element has `loopCharacteristics`, so a model without
   * loops compiles to exactly the IR (and digest) it always did.
   */
  loop?: LoopSpec;
  /** `isForCompensation`: a compensation handler, run only by a compensation, never by a flow. */
  forCompensation?: true;
  /**
   * The element's `thresher:touchpoint` mark: set only when it has one, so an unmarked model keeps its IR
   * and digest (see `touchpoints/declaration.ts` for what the mark does).
   */
  touchpoint?: TouchpointMark;
  /** The element's first `bpmn:documentation`, trimmed; set only when it has some. Left out of the digest. */
  documentation?: string;
  /**
   * Its `zeebe:executionListeners` (Camunda 8.6+): set only when it has some, so a model without listeners
   * keeps its IR and digest. A looping activity's listeners run for each body, as Zeebe runs them for each
   * inner instance.
   */
  listeners?: ExecutionListeners;
}

/**
 * One `zeebe:executionListener`: a job of its own kind that runs when its element starts (`start`: after the
 * input mappings, before the element does its work) or ends (`end`: after the output mappings, before it
 * leaves), the element waiting on it. `taskType` and `retries` follow `zeebe:taskDefinition`'s value rule.
 */
export interface ExecutionListener extends JobExpressions {
  /** `type`: the job type its handler is found by (the expression's text when `typeExpression` is set). */
  taskType: string;
  /** `retries`, else undefined (the engine's default applies). */
  retries: number | undefined;
  /** The listener's own `zeebe:taskHeaders`; set only when it has some. */
  headers?: Record<string, string>;
}

/** The two moments an execution listener runs at. */
export type ListenerEvent = 'start' | 'end';

/** An element's (or a process's) execution listeners by event, each list in model order; a key only when it has some. */
export type ExecutionListeners = { [E in ListenerEvent]?: ExecutionListener[] };

/**
 * `bpmn:multiInstanceLoopCharacteristics` with `zeebe:loopCharacteristics`: the activity runs once per
 * item of `inputCollection` (or `cardinality` times), each run a body of its own.
 */
export interface MultiInstance {
  kind: 'multiInstance';
  /** `isSequential`: one body after another; false runs every body at once (parallel). */
  sequential: boolean;
  /** `zeebe:loopCharacteristics inputCollection` (`=` FEEL, as Zeebe requires): one body per item. */
  inputCollection: Expression | null;
  /** `inputElement`: the variable each body sees its item in; null when the items are not named. */
  inputElement: string | null;
  /**
   * `bpmn:loopCardinality` (`=` FEEL, or a plain non-negative integer): how many bodies, when there is no
   * `inputCollection` (the two exclude each other).
   */
  cardinality: Expression | null;
  /** `outputCollection`: the variable the bodies' results are gathered in, in input order; null with `outputElement`. */
  outputCollection: string | null;
  /** `outputElement` (`=` FEEL): each body's result, evaluated as it completes; null with `outputCollection`. */
  outputElement: Expression | null;
  /** `bpmn:completionCondition` (`=` FEEL): checked after each body; true completes the activity early. */
  completionCondition: Expression | null;
}

/** `bpmn:standardLoopCharacteristics`: the activity runs again while `loopCondition` holds. */
export interface StandardLoop {
  kind: 'standardLoop';
  /** `bpmn:loopCondition` (`=` FEEL): another pass while it is true; null loops until `loopMaximum`. */
  loopCondition: Expression | null;
  /** `testBefore`: check the condition before the first pass too (a while loop), not only after each (do-while). */
  testBefore: boolean;
  /** `loopMaximum`: at most this many passes; null for no cap. */
  loopMaximum: number | null;
}

export type LoopSpec = MultiInstance | StandardLoop;

/** What an event waits for, throws or catches. `null` codes catch every error / escalation. */
export type EventDefinition =
  | { kind: 'timer'; timer: TimerSpec }
  | { kind: 'message'; name: Expression; correlationKey: Expression | null }
  | { kind: 'signal'; name: Expression }
  | { kind: 'error'; code: string | null }
  | { kind: 'escalation'; code: string | null }
  | { kind: 'link'; name: string }
  /**
   * Compensation: on a boundary event, it marks its activity compensable (`handler`, by association); on a
   * throw or end event, it compensates `activity` (an id in the thrower's scope) or, null, the whole scope.
   */
  | { kind: 'compensate'; activity: string | null }
  /** A transaction's cancel: its cancel end event, or the cancel boundary event on it. */
  | { kind: 'cancel' }
  /**
   * A condition (`=` FEEL) that the event waits to hold: checked on arrival and after every step; with a
   * `zeebe:conditionalFilter`, only after a step that created or updated (`events`) one of `variables`
   * (null: any variable).
   */
  | { kind: 'conditional'; condition: Expression; filter: ConditionFilter | null };

/** Which variable changes make a conditional event check its condition (`zeebe:conditionalFilter`). */
export interface ConditionFilter {
  variables: string[] | null;
  events: ('create' | 'update')[];
}

export interface StartEventNode extends NodeBase {
  type: typeof NodeType.StartEvent;
  /** Absent for a none start event. */
  event?: EventDefinition;
  /** For the start event of an event sub-process: whether it interrupts its scope (default true). */
  interrupting?: boolean;
}
export interface EndEventNode extends NodeBase, JobExpressions {
  type: typeof NodeType.EndEvent;
  /** Absent for a none end event; error, escalation, signal, or message (a job, as in Zeebe). */
  event?: EventDefinition;
  /** A message end event is a job: its `zeebe:taskDefinition type`. */
  taskType?: string;
  retries?: number;
  /** A message end event's `zeebe:taskHeaders` (static job headers), `{}` when none; absent otherwise. */
  headers?: Record<string, string>;
}
export interface IntermediateCatchEventNode extends NodeBase {
  type: typeof NodeType.IntermediateCatchEvent;
  /** timer, message, signal or link. */
  event: EventDefinition;
}
export interface IntermediateThrowEventNode extends NodeBase, JobExpressions {
  type: typeof NodeType.IntermediateThrowEvent;
  /** Absent for a none throw event (passes through); signal, escalation, link, or message (a job). */
  event?: EventDefinition;
  taskType?: string;
  retries?: number;
  /** A message throw's `zeebe:taskHeaders` (static job headers), `{}` when none; absent otherwise. */
  headers?: Record<string, string>;
}
export interface BoundaryEventNode extends NodeBase {
  type: typeof NodeType.BoundaryEvent;
  /** The activity it is attached to. */
  attachedTo: string;
  /** `cancelActivity`: an interrupting boundary cancels its activity when it fires. */
  interrupting: boolean;
  /** timer, message, signal, error, escalation, compensate or cancel. */
  event: EventDefinition;
  /** A compensation boundary's handler: the `isForCompensation` activity it is associated with. */
  handler?: string;
}
export interface ReceiveTaskNode extends NodeBase {
  type: typeof NodeType.ReceiveTask;
  event: Extract<EventDefinition, { kind: 'message' }>;
}
/** A send task is a job, as in Zeebe. */
export interface SendTaskNode extends NodeBase, JobExpressions {
  type: typeof NodeType.SendTask;
  taskType: string;
  retries: number | undefined;
  /** `zeebe:taskHeaders` as key → value (static job headers); the compiler always sets it, `{}` when none. */
  headers?: Record<string, string>;
}
export interface EventBasedGatewayNode extends NodeBase {
  type: typeof NodeType.EventBasedGateway;
}
export interface TerminateEndEventNode extends NodeBase {
  type: typeof NodeType.TerminateEndEvent;
}
/** `bpmn:task` (abstract) and `bpmn:manualTask` pass straight through. */
export interface TaskNode extends NodeBase {
  type: typeof NodeType.Task | typeof NodeType.ManualTask;
}
export interface ServiceTaskNode extends NodeBase, JobExpressions {
  type: typeof NodeType.ServiceTask;
  /** `zeebe:taskDefinition type`, else the element id. */
  taskType: string;
  /** `zeebe:taskDefinition retries`, else undefined (the engine's default applies). */
  retries: number | undefined;
  /** `zeebe:taskHeaders` as key → value (static job headers); the compiler always sets it, `{}` when none. */
  headers?: Record<string, string>;
}
export interface ScriptTaskNode extends NodeBase {
  type: typeof NodeType.ScriptTask;
  /** `zeebe:script expression` (or a FEEL `bpmn:script` body). */
  expression: Expression;
  /** `zeebe:script resultVariable`. */
  resultVariable: string;
}
/** Which version of a decision (or process) a reference takes: Zeebe's `bindingType`. */
export type Binding = { kind: 'latest' } | { kind: 'deployment' } | { kind: 'versionTag'; versionTag: string };

/** A business rule task that evaluates a DMN decision in the engine (`zeebe:calledDecision`), as Zeebe does. */
export interface BusinessRuleTaskNode extends NodeBase {
  type: typeof NodeType.BusinessRuleTask;
  /** `decisionId`: a static id (as a FEEL string) or `=` FEEL evaluated when the task runs. */
  decisionId: Expression;
  /** `resultVariable`: where the decision's result goes (then through the output mappings). */
  resultVariable: string;
  binding: Binding;
}
/** A business rule task implemented by a job worker (`zeebe:taskDefinition`), as Zeebe runs it. */
export interface BusinessRuleJobNode extends NodeBase, JobExpressions {
  type: typeof NodeType.BusinessRuleTask;
  taskType: string;
  retries: number | undefined;
  headers?: Record<string, string>;
}
export interface UserTaskNode extends NodeBase {
  type: typeof NodeType.UserTask;
  /** `zeebe:assignmentDefinition assignee` (a static value is a FEEL string), evaluated at creation; null when none. */
  assignee: Expression | null;
  /** `candidateGroups`, a list expression (a static "a, b" is the list ["a", "b"]); absent when not given. */
  candidateGroups?: Expression;
  /** `candidateUsers`, as `candidateGroups`. */
  candidateUsers?: Expression;
  /** Its Camunda Form (`zeebe:formDefinition`), when it has one Thresher can find; absent otherwise. */
  form?: UserTaskForm;
  /** `zeebe:taskSchedule dueDate`: a static ISO 8601 date-time (as a FEEL string) or `=` FEEL; absent when none. */
  dueDate?: Expression;
  /** `zeebe:taskSchedule followUpDate`, as `dueDate`. */
  followUpDate?: Expression;
  /** `zeebe:priorityDefinition priority`: an integer 0–100 (as a FEEL number) or `=` FEEL; absent means 50. */
  priority?: Expression;
  /** `zeebe:taskHeaders`: passed to its task listeners' jobs and shown with the task; set only when it has some. */
  headers?: Record<string, string>;
  /** `zeebe:taskListeners`, by event in model order; set only when it has some. */
  taskListeners?: TaskListeners;
}

/** A user task listener (`zeebe:taskListener`): a job's type and retries. */
export type TaskListener = JobSource & { retries: number | undefined };

/** A user task's listeners by event, each list in model order; a key only when it has some. */
export type TaskListeners = { [E in UserTaskEvent]?: TaskListener[] };

/**
 * A user task's form: an embedded one (`formKey="camunda-forms:bpmn:ID"` naming the process's
 * `zeebe:userTaskForm`), held as its JSON text, or a linked one (`formId`), held by its id.
 */
export type UserTaskForm = { kind: 'embedded'; json: string } | { kind: 'linked'; formId: string };
/** `bpmn:callActivity`: starts an instance of another process and waits for it to end. */
export interface CallActivityNode extends NodeBase {
  type: typeof NodeType.CallActivity;
  /** `zeebe:calledElement processId`: a static id (as a FEEL string) or `=` FEEL evaluated when the call starts. */
  calledElement: Expression;
  /**
   * `bindingType`: which version is called — the latest deployed (default), the one deployed with the
   * caller (`deployment`), or the latest with `versionTag`.
   */
  binding: Binding;
  /** `propagateAllChildVariables` (Zeebe's default true): the child's variables come back when it ends (else only the outputs). */
  propagateAllChildVariables: boolean;
  /** `propagateAllParentVariables` (Zeebe's default true): the child starts with the caller's variables (else only the inputs). */
  propagateAllParentVariables: boolean;
}
export interface GatewayNode extends NodeBase {
  type: typeof NodeType.ExclusiveGateway | typeof NodeType.ParallelGateway | typeof NodeType.InclusiveGateway;
  /** The `default` flow id (exclusive and inclusive only). */
  defaultFlow: string | null;
}
export interface SubProcessNode extends NodeBase {
  type: typeof NodeType.SubProcess;
  /** Ids of its start events: the one none start of an embedded sub-process, the one event start of an event sub-process. */
  startNodes: string[];
  /** An event sub-process (`triggeredByEvent`): started by its one event start event, never by a flow. */
  triggeredByEvent?: boolean;
  /** A `bpmn:transaction`: a cancel end event inside compensates it and leaves by its cancel boundary. */
  transaction?: true;
  /** A `bpmn:adHocSubProcess`: its elements are activated, not started by a start event. */
  adHoc?: AdHocSpec;
}

/** An ad-hoc sub-process (Camunda 8.8): which elements it activates, and when it completes. */
export interface AdHocSpec {
  /** `zeebe:adHoc activeElementsCollection`: the ids of the elements to activate on entry; null: none. */
  activeElements: Expression | null;
  /** `bpmn:completionCondition`, evaluated as each activation completes; null: done when none is left. */
  completionCondition: Expression | null;
  /** `cancelRemainingInstances` (default true): a met condition cancels the activations still running. */
  cancelRemaining: boolean;
  /** `zeebe:adHoc outputCollection`: a local list each completed activation adds its `outputElement` to. */
  outputCollection: string | null;
  outputElement: Expression | null;
  /** The inner elements an activation may start at: those without incoming flows (no boundary events). */
  activatable: string[];
}

export type Node =
  | StartEventNode
  | EndEventNode
  | TerminateEndEventNode
  | TaskNode
  | ServiceTaskNode
  | ScriptTaskNode
  | UserTaskNode
  | GatewayNode
  | SubProcessNode
  | IntermediateCatchEventNode
  | IntermediateThrowEventNode
  | BoundaryEventNode
  | ReceiveTaskNode
  | SendTaskNode
  | EventBasedGatewayNode
  | CallActivityNode
  | BusinessRuleTaskNode
  | BusinessRuleJobNode;

export interface Flow {
  id: string;
  name: string | null;
  source: string;
  target: string;
  /** `conditionExpression`; null when unconditional. */
  condition: Expression | null;
}

export interface ProcessDef {
  id: string;
  name: string | null;
  /** Whether `isExecutable` was set (only executable processes can be started by id without --process). */
  executable: boolean;
  /** `zeebe:versionTag`: what a call activity with `bindingType="versionTag"` calls it by. */
  versionTag?: string;
  /** Ids of the none start events at the process level. */
  startNodes: string[];
  /** Ids of the message, timer and signal start events at the process level. */
  eventStartNodes?: string[];
  /** Boundary event ids by the activity they are attached to. */
  boundaries?: ReadonlyMap<string, string[]>;
  /** Event sub-process ids by their container (the process id or a sub-process id). */
  eventSubProcesses?: ReadonlyMap<string, string[]>;
  /** Compensable activities: each one's compensation handler, from its compensation boundary event. */
  compensation?: ReadonlyMap<string, string>;
  /** The process's own `zeebe:executionListeners`; set only when it has some (the IR and digest stay as they were). */
  listeners?: ExecutionListeners;
  /** Every node of the process, nested containers included. */
  nodes: ReadonlyMap<string, Node>;
  flows: ReadonlyMap<string, Flow>;
}

/** The result of `compile(xml)`. */
export interface ProcessModel {
  /** The `bpmn:definitions` id, else the first process id. */
  definitionId: string;
  /** sha256 over the canonical JSON of the compiled model (not the XML bytes). */
  digest: string;
  processes: ReadonlyMap<string, ProcessDef>;
  /** Recoverable issues found while compiling (e.g. moddle warnings on unknown attributes). */
  warnings: ModelWarning[];
}

/** What a job is made from: an element's `zeebe:taskDefinition`, or an execution listener. */
export type JobSource = JobExpressions & { taskType: string; retries?: number | undefined };

/** An element that runs as a job (service and send tasks, message throw and end events, as in Zeebe). */
export type JobNode = Node &
  JobExpressions & { taskType: string; retries?: number | undefined; headers?: Record<string, string> };

/** Whether an element runs as a job, and so has a task type and retries. */
export function isJobNode(node: Node | undefined): node is JobNode {
  return node !== undefined && 'taskType' in node && typeof node.taskType === 'string';
}

const NO_LISTENERS: readonly ExecutionListener[] = Object.freeze([]);
const NO_TASK_LISTENERS: readonly TaskListener[] = Object.freeze([]);

/**
 * Where the model defines `job`: its execution or task listener, or its element; undefined when the process
 * has no such source (a job of another definition).
 */
export function jobSourceOf(process: ProcessDef, job: JobRecord): JobSource | undefined {
  if (job.listener) return listenersOf(process, job.nodeId, job.listener.eventType)[job.listener.index];
  if (job.taskListener) return taskListenersOf(process, job.nodeId, job.taskListener.eventType)[job.taskListener.index];
  const node = process.nodes.get(job.nodeId);
  return isJobNode(node) ? node : undefined;
}

/** The task listeners of `event` on the user task `nodeId` (none on any other element). */
export function taskListenersOf(process: ProcessDef, nodeId: string, event: UserTaskEvent): readonly TaskListener[] {
  const node = process.nodes.get(nodeId);
  return (node?.type === NodeType.UserTask && node.taskListeners?.[event]) || NO_TASK_LISTENERS;
}

/** The execution listeners of `event` on the element `nodeId`, or on the process when `nodeId` is its id. */
export function listenersOf(process: ProcessDef, nodeId: string, event: ListenerEvent): readonly ExecutionListener[] {
  const holder = nodeId === process.id ? process : process.nodes.get(nodeId);
  return holder?.listeners?.[event] ?? NO_LISTENERS;
}
