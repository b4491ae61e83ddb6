/**
 * `zeebe:taskListeners` (Camunda 8.8) on a user task: jobs of their own kind that run, one after the other,
 * when the task is being created, assigned, updated, completed or canceled, and that may correct the task's
 * fields or deny the transition. Zeebe's event names before 8.8 (`create`, `assignment`, `update`, `complete`,
 * `cancel`) are read as the new ones, with a warning, as Zeebe reads them.
 *
 * @module
 */
import type { UserTaskEvent } from '@thresher/checkpoint';
import type { IssueCollector } from './issues.js';
import { readJobValues } from './job-values.js';
import { children, idOf, type ModdleElement, str } from './moddle.js';
import type { TaskListener, TaskListeners } from './node-types.js';

const EVENTS: readonly UserTaskEvent[] = ['creating', 'assigning', 'updating', 'completing', 'canceling'];

/** Zeebe's names before 8.8, deprecated there and read as the new ones. */
const DEPRECATED: Readonly<Record<string, UserTaskEvent>> = {
  create: 'creating',
  assignment: 'assigning',
  update: 'updating',
  complete: 'completing',
  cancel: 'canceling',
};

/**
 * The task listeners `holder` (a `zeebe:taskListeners`) lists for the user task `element`, by event in model
 * order; null when an issue was recorded.
 */
export function readTaskListeners(
  element: ModdleElement,
  holder: ModdleElement,
  issues: IssueCollector,
): TaskListeners | null {
  const listeners: TaskListeners = {};
  let ok = true;
  for (const listener of children(holder, 'listeners')) {
    const written = str(listener, 'eventType')?.trim() ?? '';
    const event = eventOf(element, written, issues);
    const type = str(listener, 'type')?.trim() ?? '';
    if (event && type === '') {
      issues.error(
        element,
        `a zeebe:taskListener eventType="${written}" has no type: name the job type its handler takes`,
      );
    }
    if (!event || type === '') {
      ok = false;
      continue;
    }
    const retries = str(listener, 'retries')?.trim();
    const values = readJobValues(element, type, retries || undefined, 'zeebe:taskListener', issues);
    if (!values) {
      ok = false;
      continue;
    }
    const compiled: TaskListener = values;
    const list = listeners[event] ?? [];
    list.push(compiled);
    listeners[event] = list;
  }
  return ok ? listeners : null;
}

function eventOf(element: ModdleElement, written: string, issues: IssueCollector): UserTaskEvent | null {
  if (EVENTS.includes(written as UserTaskEvent)) return written as UserTaskEvent;
  const renamed = DEPRECATED[written];
  if (renamed) {
    issues.warn(
      idOf(element) ?? null,
      `zeebe:taskListener eventType="${written}" is Zeebe's name before 8.8: read as "${renamed}"`,
    );
    return renamed;
  }
  const found = written === '' ? 'has no eventType' : `has eventType="${written}"`;
  issues.error(element, `a zeebe:taskListener ${found}: the events are ${EVENTS.join(', ')}`);
  return null;
}
