/**
 * Compile-time FEEL and Zeebe's value rule: an attribute that takes a value is FEEL when it starts
 * with `=`, else the literal text (a static value). Expressions are checked to parse, recording an
 * issue on the element that holds them when they do not.
 *
 * @module
 */
import { _feelSyntaxIssue, _formatSyntaxIssue, _functionIssues, toFeelSource } from '../common/feel.js';
import type { IssueCollector } from './issues.js';
import { idOf, type ModdleElement } from './moddle.js';
import type { Expression } from './types.js';

const FEEL_STRINGS = /"(?:[^"\\]|\\.)*"/g;
const DOUBLE_EQUALS = /(?<![=!<>])==(?!=)/;

/**
 * Parses `raw` (with or without a leading `=`) as FEEL held by `holder`.
 *
 * @param what names the attribute for the message, e.g. `condition` or `zeebe:input source`.
 * @returns the expression, or null (with an issue recorded) when it is empty or does not parse.
 */
export function compileExpression(
  raw: string | undefined,
  holder: ModdleElement,
  what: string,
  issues: IssueCollector,
): Expression | null {
  const source = toFeelSource(raw ?? '');
  if (source === '') {
    issues.error(holder, `${what} is empty`);
    return null;
  }
  // `a == 1` is not FEEL (feel-scala does not parse it): say what to write instead.
  if (DOUBLE_EQUALS.test(source.replace(FEEL_STRINGS, '""'))) {
    const meant = source.replace(new RegExp(DOUBLE_EQUALS.source, 'g'), '=');
    issues.error(
      holder,
      `${what} "${source}" uses "==", which is not FEEL equality: FEEL compares with a single "=" — write "=${meant}"`,
    );
    return null;
  }
  const syntax = _feelSyntaxIssue(source);
  if (syntax) {
    issues.error(holder, `${what} "${source}" is not valid FEEL: ${_formatSyntaxIssue(syntax)}`);
    return null;
  }
  // A call that cannot be evaluated would be a silent null at run time (feel-scala only warns): refused here.
  const calls = _functionIssues(source);
  for (const problem of calls) issues.error(holder, `${what} "${source}" cannot be evaluated: ${problem}`);
  if (calls.length > 0) return null;
  return { source, elementId: idOf(holder) ?? '' };
}

/** Whether an attribute's text is a Zeebe expression (`=…`) rather than a static value. */
export function isExpressionText(raw: string): boolean {
  return raw.trimStart().startsWith('=');
}

/**
 * An attribute that takes a static value or an expression, by Zeebe's rule: `=expr` is FEEL; any other
 * text is the literal string, exactly as written (`Me` is the string "Me", `"You"` keeps its quotes).
 *
 * @returns the value as an expression (a static value becomes a FEEL string), or null with an issue recorded.
 */
export function compileValue(
  raw: string,
  holder: ModdleElement,
  what: string,
  issues: IssueCollector,
): Expression | null {
  return isExpressionText(raw) ? compileExpression(raw, holder, what, issues) : literal(raw, holder);
}

/** A static value as a FEEL string expression (JSON's string syntax is FEEL's). */
export function literal(text: string, holder: ModdleElement): Expression {
  return { source: JSON.stringify(text), elementId: idOf(holder) ?? '' };
}

/** A static comma-separated list (`sales, managers`), as Zeebe reads candidate groups: a FEEL list of strings. */
export function staticList(text: string, holder: ModdleElement): Expression {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return { source: JSON.stringify(items), elementId: idOf(holder) ?? '' };
}

/**
 * An attribute that must be an expression (a sequence-flow condition, a script): Zeebe refuses a static
 * value there at deployment, and so does Thresher, showing the expression it most likely meant.
 */
export function compileRequiredExpression(
  raw: string,
  holder: ModdleElement,
  what: string,
  issues: IssueCollector,
): Expression | null {
  const text = raw.trim();
  if (text === '' || isExpressionText(text)) return compileExpression(text, holder, what, issues);
  const meant = text.replace(new RegExp(DOUBLE_EQUALS.source, 'g'), '=');
  const equality = meant === text ? '' : '; "==" is not FEEL equality, FEEL compares with a single "="';
  issues.error(
    holder,
    `${what} "${text}" is a static value, not an expression: Zeebe expressions start with "=" — write "=${meant}"${equality}`,
  );
  return null;
}
