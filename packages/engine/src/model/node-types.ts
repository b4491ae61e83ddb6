/**
 * The compiled model's nodes: one interface per element type the compiler emits, and `Node`, their union.
 */

import type { UserTaskEvent } from '@thresher/checkpoint';
import type { Expression } from '../common/feel.js';
import type { EventDefinition, JobExpressions, JobSource, NodeBase, NodeType } from './types.js';

export interface StartEventNode extends NodeBase {
  type: typeof NodeType.StartEvent;
  /** Absent for a none start event. */
  event?: EventDefinition;
  /** For the start event of an event sub-process: whether it interrupts its scope (default true). */
  interrupting?: boolean;
  /** A process's none start event's Camunda Form (`zeebe:formDefinition`): its start form; absent when none. */
  form?: UserTaskForm;
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
