/**
 * The compiled form of a FEEL node (a closure over scope and state), and the small combinators of
 * feel-scala's interpreter that decide where an error value propagates and where it becomes null.
 *
 * @module
 */
import { FeelErrorValue, type FeelValue, type Val } from '../values.js';
import type { Scope } from './scope.js';
import type { EvalState } from './state.js';

/** A compiled node. @internal */
export type Code = (scope: Scope, state: EvalState) => Val;

/** Whether a closure's result is an error value. */
export function isError(value: Val | undefined): value is FeelErrorValue {
  return value instanceof FeelErrorValue;
}

/** feel-scala's `withValOrNull`: an error becomes null, a fatal error stays. */
export function orNull(value: Val): Val {
  return value instanceof FeelErrorValue && !value.fatal ? null : value;
}

/** feel-scala's `toEither` inside a list or context: a fatal error becomes an ordinary one. */
export function asError(value: FeelErrorValue): FeelErrorValue {
  return value.fatal ? new FeelErrorValue(value.toString()) : value;
}

/** A value known not to be an error. */
export type Ok = FeelValue;
