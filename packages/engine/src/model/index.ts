/**
 * The model compiler of `@thresher/engine`: BPMN 2.0 XML (Camunda Modeler / Zeebe flavour) in, an
 * immutable graph IR out, or one `ModelError` naming every element Thresher cannot run. The FEEL
 * helpers the runtime evaluates compiled expressions with live beside it.
 *
 * @module
 */
export { evaluate, evaluateCondition, parseExpression, toFeelSource } from '../common/feel.js';
export { type CompileOptions, compile } from './compile.js';
export { type KnownJob, knownJobs } from './job-types.js';
export type {
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
  TaskNode,
  TerminateEndEventNode,
  UserTaskNode,
} from './node-types.js';
export type { Flow, ProcessDef, ProcessModel } from './process-types.js';
export { listenersOf } from './process-types.js';
export { literalString, reachableProcesses } from './reach.js';
export type {
  EventDefinition,
  ExecutionListener,
  ExecutionListeners,
  Expression,
  IoMapping,
  ListenerEvent,
  LoopSpec,
  Mapping,
  ModelWarning,
  MultiInstance,
  StandardLoop,
  TimerSpec,
} from './types.js';
export { NodeType } from './types.js';
