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
export { literalString, reachableProcesses } from './reach.js';
export type {
  BoundaryEventNode,
  BusinessRuleJobNode,
  BusinessRuleTaskNode,
  CallActivityNode,
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
  ListenerEvent,
  LoopSpec,
  Mapping,
  ModelWarning,
  MultiInstance,
  Node,
  ProcessDef,
  ProcessModel,
  ReceiveTaskNode,
  ScriptTaskNode,
  SendTaskNode,
  ServiceTaskNode,
  StandardLoop,
  StartEventNode,
  SubProcessNode,
  TaskNode,
  TerminateEndEventNode,
  TimerSpec,
  UserTaskNode,
} from './types.js';
export { listenersOf, NodeType } from './types.js';
