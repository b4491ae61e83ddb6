/**
 * `@thresher/feel`: FEEL evaluated as Camunda 8 (Zeebe, feel-scala 1.19) evaluates it.
 *
 * Contract:
 * - Parse once, evaluate many times: {@link parseExpression} / {@link parseUnaryTests} read the
 *   source with lezer-feel and compile it to closures; a source feel-scala would not parse is a
 *   {@link FeelSyntaxError}.
 * - Numbers are decimals with feel-scala's semantics (34 significant digits, half-even, Java's scale),
 *   so `0.1 + 0.2 = 0.3` and integers beyond 2^53 stay exact; safe integers take a fast path.
 * - Every built-in of Camunda's documentation evaluates, with its named parameters.
 * - No silent null: {@link functionIssues} finds, before anything runs, each call that cannot be
 *   evaluated; {@link evaluate} returns a failure where feel-scala fails and a value with warnings
 *   where feel-scala suppresses the failure (a missing variable, `1 + "a"`).
 * - The clock, the zone, randomness and uuids are injected ({@link EvaluateOptions}).
 *
 * @module
 */
export {
  type EvaluateOptions,
  evaluate,
  evaluateUnaryTests,
  type FeelExpression,
  type FeelFailure,
  type FeelResult,
  type FeelUnaryTests,
  type ParseOptions,
  parseExpression,
  parseUnaryTests,
} from './api.js';
export { fromFeel, toFeel } from './convert.js';
export { Decimal, type RoundingMode } from './decimal.js';
export { FeelConversionError, FeelError, FeelErrorCode, FeelSyntaxError } from './errors.js';
export { feelEquals, kindOf, order } from './eval/comparison.js';
export { type FeelWarning, FeelWarningType } from './eval/state.js';
export { type FunctionIssue, FunctionIssueKind, functionIssues } from './function-issues.js';
export type { KnownNames } from './parse.js';
export { FeelDate } from './temporal/date.js';
export { FeelDateTime, FeelLocalDateTime } from './temporal/date-time.js';
export { FeelDaysTimeDuration, FeelYearsMonthsDuration } from './temporal/duration.js';
export { FeelLocalTime, FeelTime } from './temporal/time.js';
export type { Zone } from './temporal/zone.js';
export {
  type CallState,
  FeelContext,
  FeelErrorValue,
  FeelFunction,
  type FeelNumber,
  FeelRange,
  type FeelValue,
  type Invoke,
  type Kind,
  type RangeBoundary,
  typeName,
  type Val,
} from './values.js';
