/**
 * A user task as the view shows it — its facts, the variables it sees, and its actions: complete (through its
 * Camunda Form when it has one, else a JSON editor) and assign — on its instance's page and on its own.
 *
 * @module
 */
import type { InstanceView, UserTaskView } from '@thresher/engine';
import type { ProcessModel } from '@thresher/engine/model';
import { type Html, html } from '../html.js';
import { actionForm } from './actions.js';
import { dateText, type PageContext, time, valueText } from './layout.js';

/** Linked Camunda forms by form id (`zeebe:formDefinition formId`), as the app that embeds the view has them. */
export type LinkedForms = ReadonlyMap<string, unknown>;

/** The Camunda Forms of tasks, by task id, with the variables each task sees: what the client script renders. */
export type TaskForms = Record<string, { schema: unknown; data: unknown }>;

export function formsOf(
  model: ProcessModel,
  view: InstanceView,
  tasks: readonly UserTaskView[],
  forms: LinkedForms,
): TaskForms {
  const found: TaskForms = {};
  for (const task of tasks) {
    const schema = formOf(model, view.processId, task, forms);
    if (schema !== undefined) found[task.id] = { schema, data: task.variables };
  }
  return found;
}

/** The task's Camunda Form schema: an embedded one from the model, a linked one from `forms`; undefined when none. */
function formOf(model: ProcessModel, processId: string, task: UserTaskView, forms: LinkedForms): unknown {
  const node = model.processes.get(processId)?.nodes.get(task.elementId);
  const form = node && 'form' in node ? node.form : undefined;
  if (!form) return undefined;
  if (form.kind === 'linked') return forms.get(form.formId);
  return JSON.parse(form.json) as unknown;
}

/**
 * One task's article; `back` (`tasks?…`) sends its actions back to the task list rather than to the instance's page.
 */
export function taskArticle(
  ctx: PageContext,
  view: InstanceView,
  task: UserTaskView,
  taskForms: TaskForms,
  back?: string,
): Html {
  const free = task.state === 'created';
  const withForm = task.id in taskForms;
  const returning = back === undefined ? '' : html`<input type="hidden" name="back" value="${back}">`;
  const fields = html`<input type="hidden" name="task" value="${task.id}">${returning}${
    withForm
      ? html`<input type="hidden" name="variables" value="{}"><div class="camunda-form" data-form-for="${task.id}"></div>`
      : html`<label>Variables (a JSON object)<textarea name="variables" rows="4" spellcheck="false">{}</textarea></label>`
  }`;
  return html`<article class="task" data-task="${task.id}" data-element="${task.elementId}" data-revision="${task.revision}">
<h3>${task.name ?? task.elementId} <span class="sub">${task.elementId}</span></h3>
<dl class="facts"><dt>State</dt><dd>${task.state}</dd><dt>Assignee</dt><dd>${task.assignee ?? 'nobody'}</dd>
${task.candidateGroups.length > 0 && html`<dt>Candidate groups</dt><dd>${task.candidateGroups.join(', ')}</dd>`}
${task.candidateUsers.length > 0 && html`<dt>Candidate users</dt><dd>${task.candidateUsers.join(', ')}</dd>`}
<dt>Priority</dt><dd>${task.priority}</dd>${task.dueDate !== null && html`<dt>Due</dt><dd>${dateText(task.dueDate)}</dd>`}
<dt>Created</dt><dd>${time(task.createdAt)}</dd>
${task.denied !== null && html`<dt>Denied</dt><dd>${task.denied.event}${task.denied.reason !== null && `: ${task.denied.reason}`}</dd>`}</dl>
<details><summary>Variables the task sees</summary><pre>${valueText(task.variables)}</pre></details>
${
  free
    ? html`${actionForm(ctx, view.id, 'complete', 'Complete', fields, withForm ? 'with-form' : '')}
${actionForm(ctx, view.id, 'assign', 'Assign', html`<input type="hidden" name="task" value="${task.id}">${returning}<label>Assignee <input name="assignee" value="${task.assignee ?? ''}" placeholder="empty: unassign"></label>`)}`
    : html`<p class="note">Its ${task.state} listeners are running; it takes no command until they are done.</p>`
}</article>`;
}
