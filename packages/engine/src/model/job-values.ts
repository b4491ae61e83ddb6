/**
 * A job's type and retries as a model writes them (`zeebe:taskDefinition`, `zeebe:executionListener`):
 * static text, or `=expr` evaluated when the job is created, as in Zeebe.
 *
 * @module
 */
import { compileExpression, isExpressionText, literal } from './expression.js';
import type { IssueCollector } from './issues.js';
import type { ModdleElement } from './moddle.js';
import type { JobSource } from './types.js';

/**
 * The job values `holder` gives (`what` names the attribute's element in messages), or null when an issue
 * was recorded. `type` is the trimmed type text (a default already applied); `retries` the trimmed retries text.
 */
export function readJobValues(
  holder: ModdleElement,
  type: string,
  retries: string | undefined,
  what: string,
  issues: IssueCollector,
): (JobSource & { retries: number | undefined }) | null {
  const job: JobSource & { retries: number | undefined } = { taskType: type, retries: undefined };
  let ok = true;
  if (isExpressionText(type)) {
    const expression = compileExpression(type, holder, `${what} type`, issues);
    if (expression) job.typeExpression = expression;
    else ok = false;
  }
  if (retries && isExpressionText(retries)) {
    const expression = compileExpression(retries, holder, `${what} retries`, issues);
    if (expression) job.retriesExpression = expression;
    else ok = false;
  } else if (retries !== undefined) {
    const count = /^\d+$/.test(retries) ? Number(retries) : Number.NaN;
    // Zeebe deploys a static value that is no count and raises an incident when the job is created: so
    // does Thresher, evaluating it then as the text it is.
    if (Number.isSafeInteger(count)) job.retries = count;
    else job.retriesExpression = literal(retries, holder);
  }
  return ok ? job : null;
}
