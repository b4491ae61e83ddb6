/**
 * @module @thresher/engine
 *
 * Thresher's durable BPMN 2.0 engine: compile a model, run instances whose every change is durable before
 * its effects, and restore them exactly where they were after a crash.
 */

export type { DmnDefinitions } from '@thresher/dmn';
export type * from './api-types.js';
export type { ModelIssue } from './common/errors.js';
export {
  BpmnError,
  EngineError,
  EngineErrorCode,
  EventListenerError,
  ExpressionError,
  IllegalTransitionError,
  InstanceHeldError,
  InvalidArgumentError,
  InvalidStateError,
  ModelError,
  NotFoundError,
  RestoreError,
  RollbackRefusedError,
} from './common/errors.js';
export type * from './common/touchpoint-types.js';
export type * from './common/user-task-types.js';
export { type DecisionEvaluation, decide } from './core/decisions.js';
export { Engine } from './engine.js';
export { compile, type KnownJob, knownJobs, reachableProcesses } from './model/index.js';
export type * from './model/types.js';
export { isJobNode, listenersOf, NodeType } from './model/types.js';
export { answerQuestion, type OperatorRun, type OperatorRunOptions, runWithOperator } from './operator.js';
export { systemClock } from './runtime/clock.js';
export type { ConditionalStart, EvaluateConditionalsOptions } from './runtime/conditional-starts.js';
export { deploymentKind } from './runtime/definitions.js';
export { isDmn, readDmn } from './runtime/deploy-dmn.js';
export type { Worker } from './runtime/worker.js';
export { DurationError, parseDuration } from './timers/duration.js';
export { timerStartInstanceId, timerStartInstancePrefix } from './timers/occurrences.js';
export { type UserTaskChoices, userTaskChoices } from './touchpoints/choices.js';
export { type TouchpointDeclaration, touchpointOf } from './touchpoints/declaration.js';
export { type ProcessPlan, processPlan, touchpoints } from './touchpoints/plan.js';
export type * from './touchpoints/types.js';
