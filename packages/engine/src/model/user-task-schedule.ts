/**
 * A user task's due and follow-up dates (`zeebe:taskSchedule`) and priority (`zeebe:priorityDefinition`), as
 * Zeebe reads them: a static value is checked at deploy (a date-time with its offset; an integer 0–100), an
 * `=` expression when the task is created (`core/user-tasks/user-task-fields.ts`).
 *
 * @module
 */
import { compileExpression, isExpressionText, literal } from './expression.js';
import type { IssueCollector } from './issues.js';
import { type ModdleElement, str } from './moddle.js';
import type { UserTaskNode } from './node-types.js';

/** An ISO 8601 date-time with its offset (`Z` or `±hh:mm`), and a zone id after it or not. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})(\[[^\]]+\])?$/;

/** Whether `value` is a date-time Zeebe takes for a due or follow-up date (a static one, or what `=` FEEL gave). */
export function isDateTime(value: unknown): value is string {
  return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.replace(/\[.*\]$/, '')));
}

/** Read the schedule and priority into `node`; false when an issue was recorded. */
export function readSchedule(
  element: ModdleElement,
  node: UserTaskNode,
  extensions: Map<string, ModdleElement>,
  issues: IssueCollector,
): boolean {
  let ok = true;
  const schedule = extensions.get('zeebe:TaskSchedule');
  for (const property of ['dueDate', 'followUpDate'] as const) {
    const raw = schedule ? str(schedule, property)?.trim() : undefined;
    if (!raw) continue;
    const what = `zeebe:taskSchedule ${property}`;
    if (isExpressionText(raw)) {
      const expression = compileExpression(raw, element, what, issues);
      if (expression) node[property] = expression;
      else ok = false;
    } else if (isDateTime(raw)) {
      node[property] = literal(raw, element);
    } else {
      issues.error(
        element,
        `${what} "${raw}" is not an ISO 8601 date-time with an offset (2026-12-04T10:00:00Z, 2026-12-04T10:00:00+01:00), as Zeebe requires`,
      );
      ok = false;
    }
  }
  const definition = extensions.get('zeebe:PriorityDefinition');
  const raw = definition ? str(definition, 'priority')?.trim() : undefined;
  if (raw && isExpressionText(raw)) {
    const expression = compileExpression(raw, element, 'zeebe:priorityDefinition priority', issues);
    if (expression) node.priority = expression;
    else ok = false;
  } else if (raw) {
    if (/^\d+$/.test(raw) && Number(raw) <= 100) node.priority = { source: String(Number(raw)), elementId: node.id };
    else {
      issues.error(
        element,
        `zeebe:priorityDefinition priority "${raw}" is not an integer from 0 to 100, as Zeebe requires`,
      );
      ok = false;
    }
  }
  return ok;
}
