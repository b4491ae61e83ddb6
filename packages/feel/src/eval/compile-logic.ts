/**
 * The boolean side of feel-scala's interpreter: three-valued `and`/`or` (evaluated left to right,
 * stopping at the first deciding value), `not`, `if`, comparisons, and the unary-test forms that test
 * an implicit input value (`< 10`, `[1..5]`, `"a"`, expressions with `?`).
 *
 * @module
 */

import type { CompareOp } from '../ast.js';
import { FeelErrorValue, type FeelValue, type Val } from '../values.js';
import { type Code, isError } from './code.js';
import { feelEquals, isComparable, kindOf, order, scalaEquals } from './comparison.js';
import type { Scope } from './scope.js';
import { show } from './show.js';
import { type EvalState, FeelWarningType } from './state.js';

/** The input variable of unary tests (feel-scala's default `cellInput`). */
export const INPUT_VARIABLE = 'cellInput';
/** The variable that may rename it (feel-scala's `inputVariableName`). */
const INPUT_VARIABLE_NAME = 'inputVariableName';
/** The input symbol of unary-test expressions. */
export const INPUT_SYMBOL = '?';

/** feel-scala's `withBoolean`: a non-boolean records INVALID_TYPE; error values pass unrecorded. */
function asBoolean(value: Val, state: EvalState): Val {
  if (typeof value === 'boolean' || isError(value)) return value;
  return state.error(FeelWarningType.InvalidType, `Expected boolean but found '${show(value)}'`);
}

/** feel-scala's `withBooleanOrNull`. */
function booleanOrNull(value: Val, state: EvalState): Val {
  const result = asBoolean(value, state);
  return result instanceof FeelErrorValue && !result.fatal ? null : result;
}

/**
 * feel-scala's `atLeastOneValue` (`or`, `some`, a list of unary tests): true at the first true; null
 * once a non-boolean was seen, unless a later item is true.
 */
export function atLeastOne(items: Iterable<() => Val>, state: EvalState): Val {
  let acc: Val = false;
  for (const item of items) {
    if (acc === true) return true;
    if (acc instanceof FeelErrorValue && acc.fatal) return acc;
    if (acc === null) {
      const value = item();
      if (value === true) acc = true;
      else if (value instanceof FeelErrorValue && value.fatal) acc = value;
      else acc = null;
    } else {
      acc = booleanOrNull(item(), state);
    }
  }
  return acc;
}

/** feel-scala's `allValues` (`and`, `every`): false at the first false; null once a non-boolean was seen. */
export function all(items: Iterable<() => Val>, state: EvalState): Val {
  let acc: Val = true;
  for (const item of items) {
    if (acc === false) return false;
    if (acc instanceof FeelErrorValue && acc.fatal) return acc;
    if (acc === null) {
      const value = item();
      if (value === false) acc = false;
      else if (value instanceof FeelErrorValue && value.fatal) acc = value;
      else acc = null;
    } else {
      acc = booleanOrNull(item(), state);
    }
  }
  return acc;
}

/** `a or b`: feel-scala's `atLeastOne` of the two, stopping at true. */
export function compileOr(left: Code, right: Code): Code {
  return (scope, state) => {
    // The common case without allocation: two booleans.
    const a = left(scope, state);
    if (a === true) return true;
    if (a === false) {
      const b = right(scope, state);
      if (typeof b === 'boolean') return b;
      return booleanOrNull(b, state);
    }
    return atLeastOne([() => a, () => right(scope, state)], state);
  };
}

/** `a and b`: feel-scala's `all` of the two, stopping at false. */
export function compileAnd(left: Code, right: Code): Code {
  return (scope, state) => {
    // The common case without allocation: two booleans.
    const a = left(scope, state);
    if (a === false) return false;
    if (a === true) {
      const b = right(scope, state);
      if (typeof b === 'boolean') return b;
      return booleanOrNull(b, state);
    }
    return all([() => a, () => right(scope, state)], state);
  };
}

/** `not` of a boolean (from `!=`); anything else is null with INVALID_TYPE. */
export function compileNot(operand: Code): Code {
  return (scope, state) => {
    const value = booleanOrNull(operand(scope, state), state);
    return typeof value === 'boolean' ? !value : value;
  };
}

/** `if … then … else`: a condition that is not true or false takes the else branch (with a warning). */
export function compileIf(condition: Code, then: Code, otherwise: Code): Code {
  return (scope, state) => {
    const value = condition(scope, state);
    if (value === true) return then(scope, state);
    if (value === false) return otherwise(scope, state);
    const checked = asBoolean(value, state);
    if (checked instanceof FeelErrorValue && checked.fatal) return checked;
    return otherwise(scope, state);
  };
}

/** feel-scala's `checkEquality`: errors propagate, values of different types are null (NOT_COMPARABLE). */
export function equality(x: Val, y: Val, state: EvalState): Val {
  if (isError(x)) return x;
  if (isError(y)) return y;
  const equal = feelEquals(x, y);
  if (equal !== null) return equal;
  state.warn(FeelWarningType.NotComparable, `Can't compare '${show(x)}' with '${show(y)}'`);
  return null;
}

const ORDERINGS: Record<Exclude<CompareOp, '='>, (c: number) => boolean> = {
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

/** feel-scala's `dualOp` for `< <= > >=`: two comparable values of one type, else null (NOT_COMPARABLE). */
export function ordering(op: Exclude<CompareOp, '='>, x: Val, y: Val, state: EvalState): Val {
  if (isError(x)) return x;
  if (isError(y)) return y;
  // The fast path: two numbers or two strings.
  if (typeof x === 'number' && typeof y === 'number') return ORDERINGS[op](x - y);
  if (!isComparable(x) || !isComparable(y) || kindOf(x) !== kindOf(y)) {
    state.warn(FeelWarningType.NotComparable, `Can't compare '${show(x)}' with '${show(y)}'`);
    return null;
  }
  return ORDERINGS[op](order(x, y));
}

/** `= < <= > >=`, with a fast path for two numbers or two booleans. */
export function compileCompare(op: CompareOp, left: Code, right: Code): Code {
  if (op === '=') {
    return (scope, state) => {
      const x = left(scope, state);
      const y = right(scope, state);
      if (typeof x === 'number' && typeof y === 'number') return x === y;
      if (typeof x === 'boolean' && typeof y === 'boolean') return x === y;
      return equality(x, y, state);
    };
  }
  const test = ORDERINGS[op];
  return (scope, state) => {
    const x = left(scope, state);
    const y = right(scope, state);
    if (typeof x === 'number' && typeof y === 'number') return test(x - y);
    return ordering(op, x, y, state);
  };
}

/** feel-scala's `getImplicitInputValue`: the unary tests' input, or null with a warning. */
export function implicitInput(scope: Scope, state: EvalState): FeelValue {
  const renamed = scope.variable(INPUT_VARIABLE_NAME);
  const name = typeof renamed === 'string' ? renamed : INPUT_VARIABLE;
  const value = scope.variable(name);
  if (value !== undefined) return value;
  state.warn(FeelWarningType.NoVariableFound, 'No input value found.');
  return null;
}

/** The name the input is bound to (feel-scala's `getInputVariableName`). */
export function inputVariableName(scope: Scope): string {
  const renamed = scope.variable(INPUT_VARIABLE_NAME);
  return typeof renamed === 'string' ? renamed : INPUT_VARIABLE;
}

/** `< 10` and friends against the implicit input; `=` is feel-scala's `InputEqualTo`. */
export function compileInputCompare(op: CompareOp, value: Code): Code {
  return (scope, state) => {
    const input = implicitInput(scope, state);
    const x = value(scope, state);
    return op === '=' ? equality(input, x, state) : ordering(op, input, x, state);
  };
}

/** `[1..5]` against the implicit input (feel-scala's `InputInRange`). */
export function compileInputInRange(start: Code, startClosed: boolean, end: Code, endClosed: boolean): Code {
  return (scope, state) => {
    const x = start(scope, state);
    const y = end(scope, state);
    const input = implicitInput(scope, state);
    const values = [input, x, y];
    if (
      values.some((v) => isError(v) || !isComparable(v as FeelValue)) ||
      kindOf(x as FeelValue) !== kindOf(input) ||
      kindOf(y as FeelValue) !== kindOf(input)
    ) {
      state.warn(FeelWarningType.NotComparable, `Can't compare '${show(input)}' with '${show(x)}' and '${show(y)}'`);
      return null;
    }
    const low = order(input, x as FeelValue);
    const high = order(input, y as FeelValue);
    return (startClosed ? low >= 0 : low > 0) && (endClosed ? high <= 0 : high < 0);
  };
}

/**
 * An expression as a unary test (feel-scala's `UnaryTestExpression`): true when it is true, a list
 * holding the input, or equal to the input; an expression reading `?` is evaluated with `?` bound.
 */
export function compileUnaryTestExpression(expression: Code): Code {
  return (scope, state) => {
    const input = implicitInput(scope, state);
    const x = expression(scope, state);
    if (x instanceof FeelErrorValue && x.fatal) {
      const retry = expression(scope.withVariable(INPUT_SYMBOL, input), state);
      return typeof retry === 'boolean' ? retry : null;
    }
    if (x === true) return true;
    if (Array.isArray(x) && x.some((item) => scalaEquals(item, input))) return true;
    const equal = equality(input, x, state);
    if (equal === true) return true;
    if (x === false || Array.isArray(x)) return false;
    return equal === null ? null : false;
  };
}
