/**
 * FEEL for Thresher: parse once at compile time, evaluate at run time (docs/architecture.md §2), with
 * `@thresher/feel` — FEEL as Camunda 8 evaluates it (feel-scala 1.19): decimal numbers, every built-in,
 * temporal values with zones, and feel-scala's cut between a failure and a suppressed failure.
 *
 * Semantics, decided here once for the whole engine:
 * - A name that does not exist (variable, context entry, property), a path through null, operands of the
 *   wrong type (`1 + "a"`) evaluate to `null`, as in Zeebe (feel-scala suppresses those failures).
 * - Where feel-scala fails (a failed `assert`, `substring("abc", 10)`, `modulo(x, 0)`, …), evaluating is an
 *   `ExpressionError` naming the expression and feel-scala's reason: the loop raises an incident.
 * - A call of a function that does not exist, or with arguments no signature takes, is refused at deploy
 *   (`_functionIssues`), so it never becomes a silent null at run time.
 * - `now()` and `today()` read the clock's reading of the step that evaluates (UTC); `random number()` and
 *   `uuid()` draw fresh values (a step's effects are durable only once written, so a re-run draws anew).
 * - Results are plain data, as Zeebe writes a FEEL result as a variable: an integral number is a JS number,
 *   or a `bigint` past 2^53 (stored exactly); a fraction the nearest double; temporal values their ISO-8601
 *   text (`"2024-05-01"`, `"10:30"`, `"2024-05-01T10:30:00+02:00"`, `"P1DT2H"`); contexts plain objects and
 *   lists arrays. A function or range result is an `ExpressionError`: neither can be stored.
 *
 * @module
 */
import {
  evaluate as evaluateFeel,
  type FeelExpression,
  FeelSyntaxError,
  fromFeel,
  functionIssues,
  parseExpression as parseFeel,
} from '@thresher/feel';
import { ExpressionError, ModelError } from './errors.js';

/** A FEEL expression parsed at compile time. `source` is without Zeebe's leading `=`. */
export interface Expression {
  source: string;
  /** The element whose attribute held it, for error messages. */
  elementId: string;
}

/** A FEEL syntax error found at compile time: what is wrong and where (0-based character offsets). */
export interface FeelSyntaxIssue {
  message: string;
  from: number;
  to: number;
}

/**
 * Parsed expressions by source: a model's expressions are parsed once however often they run, and the
 * compiled model (whose digest covers its expressions) stays plain data.
 */
const parsed = new Map<string, FeelExpression>();

function parsedOf(source: string): FeelExpression {
  let expression = parsed.get(source);
  if (expression === undefined) {
    expression = parseFeel(source);
    parsed.set(source, expression);
  }
  return expression;
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
  try {
    parsedOf(source);
    return null;
  } catch (error) {
    if (!(error instanceof FeelSyntaxError)) throw error;
    return { message: error.reason, from: error.from, to: error.to };
  }
}

/**
 * The calls in `source` (which parses) that could not be evaluated: an unknown function, a number of
 * arguments or a parameter name no signature takes. Each message names the function and what is wrong.
 *
 * @internal Used by the model compiler, which refuses the model for each.
 */
export function _functionIssues(source: string): string[] {
  return functionIssues(parsedOf(source)).map((issue) => `${issue.message} (at character ${issue.from})`);
}

/**
 * Parses a FEEL expression once, at compile time.
 *
 * @param source the expression, with or without Zeebe's leading `=`.
 * @param elementId the element holding it, named by errors.
 * @throws ModelError when the expression does not parse (or is empty), or calls a function it cannot.
 * @example
 * ```ts
 * const expr = parseExpression('= total > 100', 'Flow_big');
 * evaluateCondition(expr, { total: 120 }, Date.now()); // true
 * ```
 */
export function parseExpression(source: string, elementId: string): Expression {
  const feel = toFeelSource(source);
  const issue = _feelSyntaxIssue(feel);
  const problems = issue ? [_formatSyntaxIssue(issue)] : _functionIssues(feel);
  if (problems.length > 0) {
    throw new ModelError(
      problems.map((problem) => ({
        elementId,
        elementType: null,
        message: `FEEL expression "${feel}" ${issue ? 'does not parse' : 'cannot be evaluated'}: ${problem}`,
      })),
    );
  }
  return { source: feel, elementId };
}

/**
 * Words a syntax issue for a message: "unexpected "else" at character 7".
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
 * @param now the clock's reading of the step that evaluates (epoch ms): what `now()` and `today()` see.
 * @returns plain data: null, boolean, number (or bigint), string, arrays and plain objects of those;
 *   FEEL temporal values come back as ISO-8601 strings.
 * @throws ExpressionError when the evaluation fails or yields something that is not data.
 */
export function evaluate(expr: Expression, variables: Record<string, unknown>, now: number): unknown {
  let expression: FeelExpression;
  try {
    expression = parsedOf(expr.source);
  } catch (error) {
    // A compiled model's expressions parse; one made by hand might not.
    if (!(error instanceof FeelSyntaxError)) throw error;
    throw new ExpressionError(expr.elementId, expr.source, error.message);
  }
  const result = evaluateFeel(expression, variables, { now: () => now });
  if (!result.ok) throw new ExpressionError(expr.elementId, expr.source, result.failure.message);
  try {
    return fromFeel(result.value);
  } catch (error) {
    throw new ExpressionError(expr.elementId, expr.source, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Evaluates a sequence-flow condition.
 *
 * @returns true only when the result is exactly `true`; `false` and `null` (e.g. a missing
 *   variable) are false.
 * @throws ExpressionError when evaluation fails or the result is neither boolean nor null.
 */
export function evaluateCondition(expr: Expression, variables: Record<string, unknown>, now: number): boolean {
  const value = evaluate(expr, variables, now);
  if (value === true) return true;
  if (value === false || value === null) return false;
  throw new ExpressionError(expr.elementId, expr.source, `a condition must be boolean, got ${describeValue(value)}`);
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'bigint') return `number ${value}`;
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
