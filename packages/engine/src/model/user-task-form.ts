/**
 * A user task's Camunda Form (`zeebe:formDefinition`), read for the choices it offers an operator
 * (`touchpoints/choices.ts`). Thresher shows no form, so the task still warns that it is not shown.
 *
 * @module
 */
import type { IssueCollector } from './issues.js';
import { extensions, idOf, type ModdleElement, str } from './moddle.js';
import type { UserTaskForm } from './types.js';

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
  const notShown = "forms are not shown by Thresher yet, only read for the task's choices";
  const formId = str(definition, 'formId')?.trim();
  const key = str(definition, 'formKey')?.trim();
  const embeddedId = key && !formId ? EMBEDDED_KEY.exec(key)?.[1] : undefined;
  if (embeddedId === undefined) {
    issues.warn(taskId, `zeebe:formDefinition: ${notShown}`);
    return formId ? { kind: 'linked', formId } : undefined;
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
  issues.warn(taskId, `zeebe:formDefinition names the embedded zeebe:userTaskForm "${embeddedId}": ${notShown}`);
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
