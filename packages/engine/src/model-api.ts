/**
 * @module @thresher/engine/model
 *
 * The compiled model, for the few who read one: `compile` turns BPMN XML into the immutable graph the engine
 * runs, with the types of its nodes, flows and processes.
 */

export { type CompileOptions, compile } from './model/compile.js';
export { type KnownJob, knownJobs } from './model/job-types.js';
export { literalString, reachableProcesses } from './model/reach.js';
export type {
  AdHocSpec,
  Binding,
  BoundaryEventNode,
  BusinessRuleJobNode,
  BusinessRuleTaskNode,
  CallActivityNode,
  ConditionFilter,
  EndEventNode,
  EventBasedGatewayNode,
  EventDefinition,
  ExecutionListener,
  ExecutionListeners,
  Expression,
  Flow,
  GatewayNode,
  IntermediateCatchEventNode,
  IntermediateThrowEventNode,
  IoMapping,
  JobExpressions,
  JobNode,
  JobSource,
  ListenerEvent,
  LoopSpec,
  Mapping,
  ModelWarning,
  MultiInstance,
  Node,
  NodeBase,
  ProcessDef,
  ProcessModel,
  ReceiveTaskNode,
  ScriptTaskNode,
  SendTaskNode,
  ServiceTaskNode,
  StandardLoop,
  StartEventNode,
  SubProcessNode,
  TaskListener,
  TaskListeners,
  TaskNode,
  TerminateEndEventNode,
  TimerSpec,
  UserTaskForm,
  UserTaskNode,
} from './model/types.js';
export { isJobNode, listenersOf, NodeType } from './model/types.js';
