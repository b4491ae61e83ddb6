/**
 * The compiled model: an immutable graph IR built once per deployment (docs/architecture.md §2).
 * The runtime reads only this; it never touches moddle elements.
 */

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

/** What a job is made from: an element's `zeebe:taskDefinition`, or an execution listener. */
export type JobSource = JobExpressions & { taskType: string; retries?: number | undefined };
