/**
 * A user task's Camunda Form (`zeebe:formDefinition`): the web view (`@thresher/ui`) renders it, and the
 * terminal operator reads the choices it offers (`touchpoints/choices.ts`). A process's none start event may carry
 * one too (its start form, which the Camunda API serves). An embedded form runs without a
 * word; a linked one warns that the view needs the form file, and one Thresher cannot find warns that it is not shown.
 *
 * @module
 */
import type { IssueCollector } from './issues.js';
import { extensions, idOf, type ModdleElement, str } from './moddle.js';
import type { UserTaskForm } from './node-types.js';

/** How Camunda Modeler names an embedded form in `formKey`: the id of the process's `zeebe:userTaskForm`. */
const EMBEDDED_KEY = /^camunda-forms:bpmn:(.+)$/;

/**
 * The form a user task's `zeebe:formDefinition` names: a linked form by its `formId`, an embedded one by
 * the JSON text of the process's `zeebe:userTaskForm` its `formKey` names.
 *
 * @returns the form; undefined when there is none Thresher can read (a custom form key, an external
 *   reference, an embedded form that is not there); null when an issue was recorded (JSON that does not parse).
 */
export function readUserTaskForm(
  task: ModdleElement,
  definition: ModdleElement,
  issues: IssueCollector,
): UserTaskForm | undefined | null {
  const taskId = idOf(task) ?? null;
  const start = task.$type === 'bpmn:StartEvent';
  const notShown = start
    ? 'the process has no start form'
    : 'Thresher shows no form for it: the task is completed with variables only';
  const formId = str(definition, 'formId')?.trim();
  const key = str(definition, 'formKey')?.trim();
  const embeddedId = key && !formId ? EMBEDDED_KEY.exec(key)?.[1] : undefined;
  if (formId) {
    // A start form is only served (the Camunda API's start form); the web view starts instances without one.
    if (!start) {
      issues.warn(
        taskId,
        `zeebe:formDefinition formId "${formId}": the web view shows a linked form only when it is given the form file (thresher ui --form FILE, or createUiHandler's forms)`,
      );
    }
    return { kind: 'linked', formId };
  }
  if (embeddedId === undefined) {
    issues.warn(
      taskId,
      `zeebe:formDefinition: ${key ? `the form key "${key}" is not a Camunda Form's; ` : ''}${notShown}`,
    );
    return undefined;
  }
  const process = processOf(task);
  const embedded = (process ? extensions(process) : []).find(
    (extension) => extension.$type === 'zeebe:UserTaskForm' && str(extension, 'id') === embeddedId,
  );
  if (!embedded) {
    issues.warn(
      taskId,
      `zeebe:formDefinition formKey "${key}" names no zeebe:userTaskForm of the process; ${notShown}`,
    );
    return undefined;
  }
  const json = str(embedded, 'body')?.trim() ?? '';
  try {
    JSON.parse(json);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    issues.error(
      task,
      `the embedded zeebe:userTaskForm "${embeddedId}" its zeebe:formDefinition names is not valid JSON: ${why}`,
    );
    return null;
  }
  return { kind: 'embedded', json };
}

/** The `bpmn:Process` an element sits in, through its sub-processes. */
function processOf(element: ModdleElement): ModdleElement | undefined {
  let at = element.$parent;
  while (at && at.$type !== 'bpmn:Process') at = at.$parent;
  return at;
}
