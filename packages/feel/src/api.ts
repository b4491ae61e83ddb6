/**
 * The entry points: parse once (`parseExpression`, `parseUnaryTests`), evaluate many times
 * (`evaluate`, `evaluateUnaryTests`). Evaluation never throws: it returns a {@link FeelResult}.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Node } from './ast.js';
import { toFeel } from './convert.js';
import { FeelConversionError } from './errors.js';
import type { Code } from './eval/code.js';
import { NotOrderedError } from './eval/comparison.js';
import { compile } from './eval/compile.js';
import { INPUT_VARIABLE } from './eval/compile-logic.js';
import { JavaException } from './eval/failure.js';
import { Scope } from './eval/scope.js';
import { EvalState, type FeelWarning, FeelWarningType } from './eval/state.js';
import { type KnownNames, parseExpressionTree, parseUnaryTestsTree } from './parse.js';
import { parseZoneId } from './temporal/zone.js';
import { FeelErrorValue, type FeelValue } from './values.js';

const PARSED = Symbol('thresher.feel.parsed');

/** What parsing built behind an expression: typed `unknown` on the public interfaces, read here only. */
interface Parsed {
  tree: Node;
  code: Code;
}

const parsedOf = (parsed: FeelExpression | FeelUnaryTests): Parsed => parsed[PARSED] as Parsed;

/** A parsed (and compiled) FEEL expression; evaluate it as often as needed. */
export interface FeelExpression {
  readonly kind: 'expression';
  /** The source, as given. */
  readonly source: string;
  /** @internal */
  readonly [PARSED]: unknown;
}

/** Parsed (and compiled) FEEL unary tests: a decision table's input entry. */
export interface FeelUnaryTests {
  readonly kind: 'unary-tests';
  readonly source: string;
  /** @internal */
  readonly [PARSED]: unknown;
}

/** Why an evaluation failed; Thresher raises an incident naming the expression and this. */
export interface FeelFailure {
  /** feel-scala's wording: `failed to evaluate expression 'x.f(1)': Expected context but found 'null'`. */
  message: string;
  /** The cause alone: `Expected context but found 'null'`. */
  reason: string;
  /** The suppressed failures met before it. */
  warnings: FeelWarning[];
}

/** The outcome of an evaluation: a value (with the warnings that explain a null), or a failure. */
export type FeelResult = { ok: true; value: FeelValue; warnings: FeelWarning[] } | { ok: false; failure: FeelFailure };

/** How to read a source. */
export interface ParseOptions {
  /** Names with spaces the source may use unquoted, beside the built-ins (see {@link KnownNames}). */
  names?: KnownNames;
}

/** What an evaluation reads from outside. */
export interface EvaluateOptions {
  /** The clock for `now()` and `today()`, as epoch milliseconds. Default: `Date.now`. */
  now?: () => number;
  /** The zone of `now()` and `today()`: an IANA id or an offset. Default: UTC (as the offset `Z`). */
  zone?: string;
  /** The source of `random number()`: a double in [0, 1). Default: `Math.random`. */
  unsafeRandom?: () => number;
  /** The source of `uuid()`. Default: `crypto.randomUUID`. */
  unsafeUuid?: () => string;
}

/** The syntax tree of a parsed expression or unary tests. @internal */
export function _treeOf(parsed: FeelExpression | FeelUnaryTests): Node {
  return parsedOf(parsed).tree;
}

/**
 * Parses a FEEL expression once, compiling it for evaluation.
 *
 * @param source the expression, without Zeebe's leading `=`.
 * @throws FeelSyntaxError with the offending span (`from`, `to`) when it does not parse as feel-scala would.
 * @example
 * ```ts
 * const expression = parseExpression('total > 100');
 * evaluate(expression, { total: 120 }); // { ok: true, value: true, warnings: [] }
 * ```
 */
export function parseExpression(source: string, options: ParseOptions = {}): FeelExpression {
  const tree = parseExpressionTree(source, options.names);
  return { kind: 'expression', source, [PARSED]: { tree, code: compile(tree) } };
}

/**
 * Parses FEEL unary tests (`< 10`, `[1..5]`, `"a", "b"`, `not(…)`, `-`, expressions with `?`).
 *
 * @throws FeelSyntaxError when they do not parse.
 */
export function parseUnaryTests(source: string, options: ParseOptions = {}): FeelUnaryTests {
  const tree = parseUnaryTestsTree(source, options.names);
  return { kind: 'unary-tests', source, [PARSED]: { tree, code: compile(tree) } };
}

function stateOf(options: EvaluateOptions): EvalState | FeelFailure {
  if (options.zone !== undefined && parseZoneId(options.zone) === null) {
    const reason = `unknown zone '${options.zone}'`;
    return { message: reason, reason, warnings: [] };
  }
  return new EvalState(
    options.now ?? Date.now,
    options.zone ?? null,
    options.unsafeRandom ?? Math.random,
    options.unsafeUuid ?? randomUUID,
  );
}

function run(source: string, code: Code, scope: () => Scope, state: EvalState): FeelResult {
  let value: FeelValue | FeelErrorValue;
  try {
    value = code(scope(), state);
  } catch (error) {
    if (error instanceof JavaException || error instanceof NotOrderedError || error instanceof FeelConversionError) {
      const reason =
        error instanceof NotOrderedError
          ? `java.lang.IllegalArgumentException: ${error.message}`
          : error instanceof JavaException
            ? error.toString()
            : error.message;
      return failure(`failed to evaluate expression '${source}' : ${reason}`, reason, state);
    }
    throw error;
  }
  const assertion = state.warnings.find((warning) => warning.type === FeelWarningType.AssertFailure);
  if (assertion) {
    return failure(
      `Assertion failure on evaluate the expression '${source}': ${assertion.message}`,
      assertion.message,
      state,
    );
  }
  if (value instanceof FeelErrorValue) {
    return failure(`failed to evaluate expression '${source}': ${value.message}`, value.message, state);
  }
  return { ok: true, value, warnings: state.warnings };
}

function failure(message: string, reason: string, state: EvalState): FeelResult {
  return { ok: false, failure: { message, reason, warnings: state.warnings } };
}

/**
 * Evaluates a parsed expression against variables (plain data; read only where the expression reads
 * them, converted as {@link toFeel} does).
 *
 * @returns the value and the suppressed failures that explain a null, or the failure.
 */
export function evaluate(
  parsed: FeelExpression,
  variables: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): FeelResult {
  const state = stateOf(options);
  if (!(state instanceof EvalState)) return { ok: false, failure: state };
  return run(parsed.source, parsedOf(parsed).code, () => Scope.root(variables), state);
}

/**
 * Evaluates unary tests against an input value, as a decision table tests an input entry.
 *
 * @param input the input value (plain data or a FEEL value); `undefined` evaluates the tests with no
 *   input value at all, as feel-scala does when none is bound.
 * @returns true when the input passes, false when not, null when the tests cannot decide.
 */
export function evaluateUnaryTests(
  parsed: FeelUnaryTests,
  input: unknown,
  variables: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): FeelResult {
  const state = stateOf(options);
  if (!(state instanceof EvalState)) return { ok: false, failure: state };
  const scope = () => {
    const root = Scope.root(variables);
    return input === undefined ? root : root.withVariable(INPUT_VARIABLE, toFeel(input));
  };
  return run(parsed.source, parsedOf(parsed).code, scope, state);
}
