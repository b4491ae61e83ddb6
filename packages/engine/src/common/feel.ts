/**
 * FEEL for Thresher: parse once at compile time, evaluate at run time (docs/architecture.md §2).
 *
 * Expressions are interpreted by `feelin` with its `camunda` dialect (backtick names such as
 * `` `order id` ``), which is the FEEL Camunda Modeler authors for Zeebe. feelin re-parses the
 * source on every call, so the common subset (literals, names and paths, arithmetic, comparisons,
 * `and`/`or`/`not`) runs instead on a closure compiled once, which hands back to feelin whenever
 * its answer could differ (feel-compiled.ts).
 *
 * Semantics, decided here once for the whole engine:
 * - A name that does not exist (variable, context entry, property) evaluates to `null`, as in
 *   Zeebe; so does an operation FEEL defines as `null` (`1 + "a"`, `date("x")`, `10 / 0`).
 * - It is an `ExpressionError` when the expression itself is broken at run time: it calls a
 *   function that does not exist (`foo(1)`), a built-in fails, or feelin reports the construct
 *   as unsupported — and the result is `null` because of it.
 * - Results are plain JSON-able data: FEEL dates, times, date-times and durations become their
 *   ISO-8601 strings (`"2024-05-01"`, `"10:30:00Z"`, `"2024-05-01T10:30:00@Europe/Paris"`,
 *   `"P1DT2H"`); contexts become plain objects, lists arrays. A function or range result, or a
 *   number that is not finite, is an `ExpressionError`: none of them can be stored in a checkpoint.
 *
 * @module
 */
import {
  type EvaluationResult,
  evaluate as feelEvaluate,
  parseExpression as feelParse,
  isFunction,
  isRange,
  type Warning,
} from 'feelin';
import { ExpressionError, ModelError } from './errors.js';
import { _evaluateCompiled, FEEL_DIALECT as DIALECT, FEELIN } from './feel-compiled.js';

/** A FEEL expression parsed at compile time. `source` is without Zeebe's leading `=`. */
export interface Expression {
  source: string;
  /** The element whose attribute held it, for error messages. */
  elementId: string;
}

/**
 * Warnings that mean the expression, not the data, is wrong: a `null` result carrying one of them
 * is an `ExpressionError` rather than a quiet `null`.
 */
const BROKEN_EXPRESSION_WARNINGS: ReadonlySet<Warning['type']> = new Set([
  'NO_FUNCTION_FOUND',
  'FUNCTION_INVOCATION_FAILURE',
  'UNSUPPORTED',
]);

/** A FEEL syntax error found at compile time: what is wrong and where (0-based character offsets). */
export interface FeelSyntaxIssue {
  message: string;
  from: number;
  to: number;
}

/**
 * Strips Zeebe's leading `=` and surrounding whitespace: `"= total > 100"` → `"total > 100"`.
 * A source without `=` is returned trimmed: Thresher reads every expression attribute as FEEL.
 */
export function toFeelSource(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.startsWith('=') ? trimmed.slice(1).trim() : trimmed;
}

/**
 * Checks `source` (already without `=`) for FEEL syntax errors without evaluating it.
 *
 * @returns the first syntax error, or null when the expression parses.
 * @internal Used by the model compiler, which collects issues instead of throwing.
 */
export function _feelSyntaxIssue(source: string): FeelSyntaxIssue | null {
  if (source.trim() === '') return { message: 'expression is empty', from: 0, to: 0 };
  let errorAt = -1;
  // The tree is walked rather than evaluated: compiling must never run user code (e.g. `now()`
  // or an unbounded `for`), so only the parse is needed to find a syntax error.
  feelParse(source, {}, DIALECT).iterate({
    enter(node) {
      if (errorAt >= 0) return false;
      if (node.type.isError) {
        errorAt = node.from;
        return false;
      }
      return undefined;
    },
  });
  if (errorAt < 0) return null;
  // feelin's interpreter stops at the first error node before running anything, and words the
  // message well ("Incomplete <Comparison>"), so ask it for the message.
  try {
    feelEvaluate(source, {}, DIALECT);
  } catch (error) {
    const position = (error as { position?: { from?: unknown; to?: unknown } }).position;
    const from = typeof position?.from === 'number' ? position.from : errorAt;
    const to = typeof position?.to === 'number' ? position.to : errorAt;
    return { message: error instanceof Error ? error.message : String(error), from, to };
  }
  return { message: 'syntax error', from: errorAt, to: errorAt };
}

/**
 * Parses a FEEL expression once, at compile time.
 *
 * @param source the expression, with or without Zeebe's leading `=`.
 * @param elementId the element holding it, named by errors.
 * @throws ModelError when the expression does not parse (or is empty).
 * @example
 * ```ts
 * const expr = parseExpression('= total > 100', 'Flow_big');
 * evaluateCondition(expr, { total: 120 }); // true
 * ```
 */
export function parseExpression(source: string, elementId: string): Expression {
  const feel = toFeelSource(source);
  const issue = _feelSyntaxIssue(feel);
  if (issue) {
    throw new ModelError([
      {
        elementId,
        elementType: null,
        message: `FEEL expression "${feel}" does not parse: ${_formatSyntaxIssue(issue)}`,
      },
    ]);
  }
  return { source: feel, elementId };
}

/**
 * Words a syntax issue for a message: "Incomplete <Comparison> at character 7".
 *
 * @internal
 */
export function _formatSyntaxIssue(issue: FeelSyntaxIssue): string {
  return `${issue.message} at character ${issue.from}`;
}

/**
 * Evaluates a compiled expression against the variables in scope.
 *
 * A missing variable yields `null`, not an error (see the module notes for the exact rules).
 *
 * @returns plain data: null, boolean, number, string, arrays and plain objects of those;
 *   FEEL temporal values come back as ISO-8601 strings.
 * @throws ExpressionError when the expression fails or yields something that is not data.
 */
export function evaluate(expr: Expression, variables: Record<string, unknown>): unknown {
  const compiled = _evaluateCompiled(expr.source, variables);
  return compiled === FEELIN ? _evaluateWithFeelin(expr, variables) : toPlain(compiled, expr);
}

/**
 * {@link evaluate} by feelin alone, without the compiled fast path.
 *
 * @internal The reference the fast path is tested against.
 */
export function _evaluateWithFeelin(expr: Expression, variables: Record<string, unknown>): unknown {
  let result: EvaluationResult<unknown>;
  try {
    result = feelEvaluate(expr.source, variables, DIALECT);
  } catch (error) {
    throw new ExpressionError(expr.elementId, expr.source, error instanceof Error ? error.message : String(error));
  }
  if (result.value === null || result.value === undefined) {
    const broken = result.warnings.find((warning) => BROKEN_EXPRESSION_WARNINGS.has(warning.type));
    if (broken) throw new ExpressionError(expr.elementId, expr.source, broken.message);
    return null;
  }
  return toPlain(result.value, expr);
}

/**
 * Evaluates a sequence-flow condition.
 *
 * @returns true only when the result is exactly `true`; `false` and `null` (e.g. a missing
 *   variable) are false.
 * @throws ExpressionError when evaluation fails or the result is neither boolean nor null.
 */
export function evaluateCondition(expr: Expression, variables: Record<string, unknown>): boolean {
  const value = evaluate(expr, variables);
  if (value === true) return true;
  if (value === false || value === null) return false;
  throw new ExpressionError(expr.elementId, expr.source, `a condition must be boolean, got ${describeValue(value)}`);
}

function toPlain(value: unknown, expr: Expression): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new ExpressionError(expr.elementId, expr.source, `result ${value} is not a finite number`);
      }
      return value;
    case 'object':
      break;
    default:
      throw new ExpressionError(expr.elementId, expr.source, `result is a ${typeof value}, not data`);
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item, expr));
  if (isFunction(value)) throw new ExpressionError(expr.elementId, expr.source, 'result is a FEEL function, not data');
  if (isRange(value)) throw new ExpressionError(expr.elementId, expr.source, 'result is a FEEL range, not data');
  if (value instanceof Date) return value.toISOString();
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    // FeelDate, FeelTime, FeelDateTime and FeelDuration serialise to their canonical ISO form.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const json: unknown = toJSON.call(value);
      if (typeof json === 'string') return json;
    }
    throw new ExpressionError(expr.elementId, expr.source, `result is a ${describeValue(value)}, not data`);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toPlain(item, expr)]));
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
