/**
 * One evaluation's state: the suppressed failures it collects (feel-scala's `EvaluationFailureCollector`)
 * and the injected sources (clock, zone, randomness) built-ins read.
 *
 * @module
 */
import { type CallState, FeelErrorValue } from '../values.js';

/** The kinds of suppressed failure, as feel-scala names them (`EvaluationFailureType`). */
export const FeelWarningType = {
  NoVariableFound: 'NO_VARIABLE_FOUND',
  NoContextEntryFound: 'NO_CONTEXT_ENTRY_FOUND',
  NoPropertyFound: 'NO_PROPERTY_FOUND',
  NotComparable: 'NOT_COMPARABLE',
  InvalidType: 'INVALID_TYPE',
  NoFunctionFound: 'NO_FUNCTION_FOUND',
  FunctionInvocationFailure: 'FUNCTION_INVOCATION_FAILURE',
  AssertFailure: 'ASSERT_FAILURE',
  Unknown: 'UNKNOWN',
} as const;
/** One of {@link FeelWarningType}. */
export type FeelWarningType = (typeof FeelWarningType)[keyof typeof FeelWarningType];

/**
 * A suppressed failure: something went wrong and FEEL carried on with `null` (a missing variable,
 * `1 + "a"`, a path through null). The result is still a success; the warning says why it is null.
 */
export interface FeelWarning {
  type: FeelWarningType;
  message: string;
}

/** The state of one evaluation. @internal */
export class EvalState implements CallState {
  readonly warnings: FeelWarning[] = [];

  constructor(
    readonly now: () => number,
    readonly zone: string | null,
    readonly unsafeRandom: () => number,
    readonly unsafeUuid: () => string,
  ) {}

  warn(type: FeelWarningType, message: string): void {
    this.warnings.push({ type, message });
  }

  /** feel-scala's `error(type, message)`: records the failure and returns it as an error value. */
  error(type: FeelWarningType, message: string): FeelErrorValue {
    this.warn(type, message);
    return new FeelErrorValue(message);
  }
}
