/**
 * Compile-time FEEL: normalise Zeebe's `=expr` syntax and check that the expression parses,
 * recording an issue on the element that holds it when it does not.
 *
 * @module
 */
import { _feelSyntaxIssue, _formatSyntaxIssue, toFeelSource } from '../common/feel.js';
import type { IssueCollector } from './issues.js';
import { idOf, type ModdleElement } from './moddle.js';
import type { Expression } from './types.js';

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
  const syntax = _feelSyntaxIssue(source);
  if (syntax) {
    issues.error(holder, `${what} "${source}" is not valid FEEL: ${_formatSyntaxIssue(syntax)}`);
    return null;
  }
  return { source, elementId: idOf(holder) ?? '' };
}
