/**
 * @module @thresher/engine/model
 *
 * The compiled model, for the few who read one: `compile` turns BPMN XML into the immutable graph the engine
 * runs, with the types of its nodes, flows and processes.
 */

export { type CompileOptions, compile } from './model/compile.js';
export { withFlowRefs } from './model/flow-refs.js';
export { type KnownJob, knownJobs } from './model/job-types.js';
export type {
  AdHocSpec,
  Binding,
  BoundaryEventNode,
  BusinessRuleJobNode,
  BusinessRuleTaskNode,
  CallActivityNode,
  EndEventNode,
  EventBasedGatewayNode,
  GatewayNode,
  IntermediateCatchEventNode,
  IntermediateThrowEventNode,
  Node,
  ReceiveTaskNode,
  ScriptTaskNode,
  SendTaskNode,
  ServiceTaskNode,
  StartEventNode,
  SubProcessNode,
  TaskListener,
  TaskListeners,
  TaskNode,
  TerminateEndEventNode,
  UserTaskForm,
  UserTaskNode,
} from './model/node-types.js';
export type { Flow, JobNode, ProcessDef, ProcessModel } from './model/process-types.js';
export { isJobNode, listenersOf } from './model/process-types.js';
export { literalString, reachableProcesses } from './model/reach.js';
export type {
  ConditionFilter,
  EventDefinition,
  ExecutionListener,
  ExecutionListeners,
  Expression,
  IoMapping,
  JobExpressions,
  JobSource,
  ListenerEvent,
  LoopSpec,
  Mapping,
  ModelWarning,
  MultiInstance,
  NodeBase,
  StandardLoop,
  TimerSpec,
} from './model/types.js';
export { NodeType } from './model/types.js';
