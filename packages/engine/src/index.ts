/**
 * @module @thresher/engine
 *
 * Thresher's durable BPMN 2.0 engine: compile a model, run instances whose every change is durable before
 * its effects, and restore them exactly where they were after a crash.
 */

export type * from './api-types.js';
export { systemClock } from './clock.js';
export { Engine } from './engine.js';
export type { ModelIssue } from './errors.js';
export {
  BpmnError,
  EngineError,
  EngineErrorCode,
  ExpressionError,
  IllegalTransitionError,
  InvalidStateError,
  ModelError,
  NotFoundError,
  RestoreError,
} from './errors.js';
export { compile } from './model/index.js';
export { DurationError, parseDuration } from './duration.js';
export type * from './model/types.js';
export { isJobNode, NodeType } from './model/types.js';
export { timerStartInstanceId, timerStartInstancePrefix } from './timer-starts.js';
