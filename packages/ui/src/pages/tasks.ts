/**
 * `/tasks`: the task list — every open user task across instances, read from the search projection (what
 * Camunda's Tasklist is to its users): filtered by assignee, candidate group or user, process, priority, due and
 * follow-up dates; sorted by priority or due date; each claimed or unclaimed in place, opened on its instance's page
 * to be completed through its form.
 *
 * @module
 */

import type { Engine } from '@thresher/engine';
import type { TaskList, TaskListItem, TaskListQuery } from '@thresher/rest';
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import type { Models } from '../models.js';
import { actionForm } from './actions.js';
import { dateText, instanceHref, layout, type PageContext } from './layout.js';
import { morePager, PAGE_SIZE, pageStart } from './paging.js';
import { formsOf, type LinkedForms, taskArticle } from './task-article.js';

const TEXT = ['assignee', 'candidateGroup', 'candidateUser', 'processId'] as const;
const DATES = ['dueBefore', 'dueFrom', 'followUpBefore', 'followUpFrom'] as const;

/** The list's query as the address carries it; a bad value is refused naming its field. */
export function readTaskQuery(params: URLSearchParams): TaskListQuery {
  const query: TaskListQuery = {};
  for (const name of TEXT) {
    const value = params.get(name)?.trim();
    if (value) query[name] = value;
  }
  if (params.get('unassigned') === 'on') query.unassigned = true;
  const priority = params.get('minPriority')?.trim();
  if (priority) {
    const value = Number(priority);
    if (!Number.isSafeInteger(value) || value < 0 || value > 100) {
      throw new UiError(UiErrorCode.BadRequest, `minPriority must be a whole number from 0 to 100, got "${priority}"`);
    }
    query.minPriority = value;
  }
  for (const name of DATES) {
    const value = params.get(name)?.trim();
    if (!value) continue;
    // A day (what a date input sends) means its start, in UTC.
    const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value;
    if (Number.isNaN(Date.parse(at))) {
      throw new UiError(
        UiErrorCode.BadRequest,
        `${name} must be a date (2026-12-31) or an ISO 8601 time, got "${value}"`,
      );
    }
    query[name] = new Date(at).toISOString();
  }
  const sort = params.get('sort');
  if (sort === 'priority' || sort === 'dueDate') query.sort = sort;
  else if (sort) throw new UiError(UiErrorCode.BadRequest, `sort must be priority or dueDate, got "${sort}"`);
  if (params.get('from')) query.from = pageStart(params);
  return query;
}

/** `/tasks`, or what it needs when the view was made without a task list. */
export async function tasksPage(ctx: PageContext, tasks: TaskList | undefined, params: URLSearchParams): Promise<Html> {
  if (tasks === undefined) {
    return layout(ctx, {
      title: 'Tasks',
      live: 'none',
      body: html`<h1>Tasks</h1><p class="notice" id="no-task-list">The task list reads the search projection of the Camunda API: <code>thresher serve --ui</code> and <code>thresher ui</code> keep one; an app passes <code>tasks: new TaskList(engine, projection)</code> to <code>createUiHandler</code>.</p>`,
    });
  }
  const query = readTaskQuery(params);
  // What this view's own actions did shows at once: the projection reads the log up to now first.
  await tasks.caughtUp();
  const found = await tasks.search({ ...query, limit: PAGE_SIZE });
  const back = `tasks?${params.toString()}`;
  const from = query.from ?? 0;
  return layout(ctx, {
    title: 'Tasks',
    live: 'all',
    body: html`<h1>Tasks</h1>${filterForm(ctx, params)}
<p class="sub" id="task-count">${found.total} open task${found.total === 1 ? '' : 's'} match</p>
${
  found.items.length === 0
    ? html`<p class="empty">No open task matches.</p>`
    : html`<table class="grid" id="tasks"><thead><tr><th>Task</th><th>Process</th><th>Assignee</th><th>Candidates</th><th>Priority</th><th>Due</th><th>Follow-up</th><th>Created</th><th></th></tr></thead>
<tbody>${found.items.map((task) => row(ctx, task, back))}</tbody></table>`
}
${morePager(ctx, 'tasks', params, from, found.total)}`,
  });
}

function filterForm(ctx: PageContext, params: URLSearchParams): Html {
  const value = (name: string) => params.get(name) ?? '';
  const sort = params.get('sort') ?? 'priority';
  const option = (name: string, label: string) =>
    html`<option value="${name}" ${sort === name ? html`selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${ctx.base}/tasks">
<label>Assignee <input name="assignee" value="${value('assignee')}"></label>
<label><input type="checkbox" name="unassigned" ${params.get('unassigned') === 'on' ? html`checked` : ''}> unassigned</label>
<label>Candidate group <input name="candidateGroup" value="${value('candidateGroup')}"></label>
<label>Candidate user <input name="candidateUser" value="${value('candidateUser')}"></label>
<label>Process <input name="processId" value="${value('processId')}"></label>
<label>Priority from <input name="minPriority" value="${value('minPriority')}" size="3"></label>
<label>Due from <input type="date" name="dueFrom" value="${value('dueFrom')}"></label>
<label>Due before <input type="date" name="dueBefore" value="${value('dueBefore')}"></label>
<label>Follow-up from <input type="date" name="followUpFrom" value="${value('followUpFrom')}"></label>
<label>Follow-up before <input type="date" name="followUpBefore" value="${value('followUpBefore')}"></label>
<label>Sort <select name="sort">${option('priority', 'priority')}${option('dueDate', 'due date')}</select></label>
<button type="submit">Filter</button> <a href="${ctx.base}/tasks">clear</a></form>`;
}

function row(ctx: PageContext, task: TaskListItem, back: string): Html {
  const hidden = html`<input type="hidden" name="task" value="${task.taskId}"><input type="hidden" name="back" value="${back}">`;
  const claim =
    task.assignee === null
      ? actionForm(
          ctx,
          task.instanceId,
          'assign',
          'Claim',
          html`${hidden}<input name="assignee" placeholder="as" size="8" required>`,
        )
      : actionForm(
          ctx,
          task.instanceId,
          'assign',
          'Unclaim',
          html`${hidden}<input type="hidden" name="assignee" value="">`,
        );
  const candidates = [...task.candidateGroups.map((g) => `group ${g}`), ...task.candidateUsers.map((u) => `user ${u}`)];
  return html`<tr data-task="${task.taskId}"><td><a class="open-task" href="${taskHref(ctx, task.taskId)}">${task.name}</a><div class="sub">${task.elementId} · <a href="${instanceHref(ctx, task.instanceId)}">instance</a></div></td>
<td>${task.processId}</td><td class="assignee">${task.assignee ?? ''}</td><td>${candidates.join(', ')}</td>
<td class="num">${task.priority}</td><td>${dateText(task.dueDate)}</td><td>${dateText(task.followUpDate)}</td><td>${dateText(task.creationDate)}</td><td>${claim}</td></tr>`;
}

/** The address of a task's own page. */
export function taskHref(ctx: PageContext, taskId: string): string {
  return `${ctx.base}/tasks/${encodeURIComponent(taskId)}`;
}

/**
 * `/tasks/:taskId`: one open task with its form, read from its instance (never behind); completing or assigning it
 * goes back to the task list.
 */
export async function taskPage(
  ctx: PageContext,
  engine: Engine,
  models: Models,
  forms: LinkedForms,
  taskId: string,
): Promise<Html> {
  const instanceId = taskId.slice(0, Math.max(0, taskId.lastIndexOf('/')));
  const view = instanceId === '' ? undefined : await engine.instance(instanceId);
  const task = view?.userTasks.find((one) => one.id === taskId);
  if (view === undefined || task === undefined) {
    throw new UiError(UiErrorCode.NotFound, `no open user task ${taskId}: it was completed, or never was`);
  }
  const deployment = await engine.deployment(view.digest);
  const model = deployment ? await models.model(deployment).catch(() => undefined) : undefined;
  const taskForms = model && !ctx.readOnly ? formsOf(model, view, [task], forms) : {};
  return layout(ctx, {
    title: task.name ?? task.elementId,
    live: `instance:${view.id}`,
    body: html`<p><a href="${ctx.base}/tasks">← Tasks</a> · ${view.processId} <a href="${instanceHref(ctx, view.id)}"><code>${view.id}</code></a></p>
${taskArticle(ctx, view, task, taskForms, 'tasks')}`,
    data: { kind: 'task', forms: taskForms },
    forms: Object.keys(taskForms).length > 0,
  });
}
