/**
 * The compiled model: an immutable graph IR built once per deployment (DESIGN §2).
 * The runtime reads only this; it never touches moddle elements.
 */

/** A FEEL expression parsed at compile time. `source` is without Zeebe's leading `=`. */
export interface Expression {
  source: string;
  /** The element whose attribute held it, for error messages. */
  elementId: string;
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
} as const;
export type NodeType = (typeof NodeType)[keyof typeof NodeType];

interface NodeBase {
  id: string;
  name: string | null;
  /** The container (process id or sub-process id) the node sits in. */
  container: string;
  /** Incoming sequence-flow ids, in document order. */
  incoming: string[];
  /** Outgoing sequence-flow ids, in document order. */
  outgoing: string[];
  io: IoMapping;
}

export interface StartEventNode extends NodeBase {
  type: typeof NodeType.StartEvent;
}
export interface EndEventNode extends NodeBase {
  type: typeof NodeType.EndEvent;
}
export interface TerminateEndEventNode extends NodeBase {
  type: typeof NodeType.TerminateEndEvent;
}
/** `bpmn:task` (abstract) and `bpmn:manualTask` pass straight through. */
export interface TaskNode extends NodeBase {
  type: typeof NodeType.Task | typeof NodeType.ManualTask;
}
export interface ServiceTaskNode extends NodeBase {
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
export interface UserTaskNode extends NodeBase {
  type: typeof NodeType.UserTask;
  /** `zeebe:assignmentDefinition assignee`, as a literal or expression source, or null. */
  assignee: string | null;
}
export interface GatewayNode extends NodeBase {
  type: typeof NodeType.ExclusiveGateway | typeof NodeType.ParallelGateway | typeof NodeType.InclusiveGateway;
  /** The `default` flow id (exclusive and inclusive only). */
  defaultFlow: string | null;
}
export interface SubProcessNode extends NodeBase {
  type: typeof NodeType.SubProcess;
  /** Ids of the none start events inside (exactly one for an embedded sub-process). */
  startNodes: string[];
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
  | SubProcessNode;

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
  /** Ids of the none start events at the process level. */
  startNodes: string[];
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

export interface ModelWarning {
  message: string;
  elementId: string | null;
}
