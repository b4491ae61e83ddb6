/**
 * The model compiler of `@thresher/engine`: BPMN 2.0 XML (Camunda Modeler / Zeebe flavour) in, an
 * immutable graph IR out, or one `ModelError` naming every element Thresher cannot run. The FEEL
 * helpers the runtime evaluates compiled expressions with live beside it.
 *
 * @module
 */
export { evaluate, evaluateCondition, parseExpression, toFeelSource } from '../feel.js';
export { type CompileOptions, compile } from './compile.js';
export type {
  EndEventNode,
  Expression,
  Flow,
  GatewayNode,
  IoMapping,
  Mapping,
  ModelWarning,
  Node,
  ProcessDef,
  ProcessModel,
  ScriptTaskNode,
  ServiceTaskNode,
  StartEventNode,
  SubProcessNode,
  TaskNode,
  TerminateEndEventNode,
  UserTaskNode,
} from './types.js';
export { NodeType } from './types.js';
