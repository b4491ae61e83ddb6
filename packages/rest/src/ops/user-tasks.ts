/**
 * The user task operations by key: read an open task, assign or unassign it, update it, complete it. The engine
 * runs the task listeners a transition has, as Zeebe does. A task is read from its instance, so it is never behind;
 * one that is no longer open (completed, cancelled) is read as the search projection keeps it.
 */
import type { UserTaskView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import type { Call, Operation } from '../operation.js';
import { notFound, unlessNotFound } from '../problem.js';
import { KINDS } from '../projection/instance-rows.js';
import { userTaskResult } from '../results.js';
import { readAssignment, readTaskCompletion, readTaskUpdate, readUnassignment } from '../schemas/user-tasks.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { linkedForm } from './forms.js';
import { keptRow } from './searches.js';

/** The open task a key names, with its instance's key parts, or a 404. */
export async function taskOfKey({ engine, keys, params }: Call): Promise<{ task: UserTaskView; serial: number }> {
  const key = params.userTaskKey!;
  const found = await keys.instanceOf(key, 'path parameter userTaskKey');
  const view = found && found.local > 0 ? await engine.instance(found.instanceId) : undefined;
  const task = view?.userTasks.find((candidate) => candidate.id === `${found!.instanceId}/u${found!.local}`);
  if (view === undefined || task === undefined) throw notFound('user task', key);
  return { task, serial: await keys.serialOf(view.id) };
}

/** Run an engine command on the task a key names; the engine's refusal of a task it no longer has is a 404. */
async function onTask(call: Call, command: (taskId: string) => Promise<void>): Promise<{ status: 204 }> {
  const { task } = await taskOfKey(call);
  try {
    await command(task.id);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'THRESHER_NOT_FOUND')
      throw notFound('user task', call.params.userTaskKey!);
    throw error;
  }
  return { status: 204 };
}

/** `GET /user-tasks/{userTaskKey}`: an open task from its instance, a closed one as the search projection keeps it. */
const getUserTask: Operation = async (call) => {
  const open = await unlessNotFound(taskOfKey(call));
  if (open === undefined) {
    const key = call.params.userTaskKey!;
    return { status: 200, body: await keptRow(call, KINDS.userTask, key, 'user task', true) };
  }
  const { task, serial } = open;
  const view = (await call.engine.instance(task.instanceId))!;
  const definition = await call.catalog.findInDeployment(view.digest, view.processId);
  return { status: 200, body: userTaskResult(task, view, definition, serial) };
};

/** `POST /user-tasks/{userTaskKey}/assignment`: a task assigned to someone else is a 409 without `allowOverride`. */
const assignUserTask: Operation = async (call) => {
  const assignment = readAssignment(await call.json());
  return onTask(call, (taskId) =>
    call.engine.assignUserTask(taskId, assignment.assignee, {
      allowOverride: assignment.allowOverride ?? true,
      ...(assignment.action ? { action: assignment.action } : {}),
    }),
  );
};

/** `DELETE /user-tasks/{userTaskKey}/assignee`. */
const unassignUserTask: Operation = async (call) => {
  readUnassignment(await call.json());
  return onTask(call, (taskId) => call.engine.assignUserTask(taskId, null));
};

/** `PATCH /user-tasks/{userTaskKey}`: what the changeset names changes (null clears it). */
const updateUserTask: Operation = async (call) => {
  const update = readTaskUpdate(await call.json());
  const changes = Object.fromEntries(Object.entries(update.changeset ?? {}).filter(([, value]) => value !== undefined));
  return onTask(call, (taskId) =>
    call.engine.updateUserTask(taskId, changes, update.action ? { action: update.action } : {}),
  );
};

/** `POST /user-tasks/{userTaskKey}/completion`. */
const completeUserTask: Operation = async (call) => {
  const completion = readTaskCompletion(await call.json());
  return onTask(call, (taskId) =>
    call.engine.completeUserTask(
      taskId,
      completion.variables ?? {},
      completion.action ? { action: completion.action } : {},
    ),
  );
};

/**
 * `GET /user-tasks/{userTaskKey}/form`: the task's Camunda form — a linked one (`formId`) as its latest deployment,
 * an embedded one as the process holds it — or a 204 when the task has none.
 */
const getUserTaskForm: Operation = async (call) => {
  const key = call.params.userTaskKey!;
  const open = await unlessNotFound(taskOfKey(call));
  let definition: ProcessDefinition | undefined;
  let elementId: string;
  if (open !== undefined) {
    const view = (await call.engine.instance(open.task.instanceId))!;
    definition = await call.catalog.findInDeployment(view.digest, view.processId);
    elementId = open.task.elementId;
  } else {
    const task = await keptRow(call, KINDS.userTask, key, 'user task', true);
    definition = await call.catalog.findKey(String(task.processDefinitionKey));
    elementId = String(task.elementId);
  }
  const form = definition?.elements.get(elementId)?.form;
  if (form === undefined) return { status: 204 };
  if (form.kind === 'embedded') {
    const embeddedId = (JSON.parse(form.json) as { id?: unknown }).id;
    return {
      status: 200,
      body: {
        tenantId: DEFAULT_TENANT,
        ...(typeof embeddedId === 'string' ? { formId: embeddedId } : {}),
        schema: form.json,
      },
    };
  }
  return linkedForm(call, form.formId, `user task ${key}`);
};

export const userTaskOperations = {
  getUserTask,
  getUserTaskForm,
  assignUserTask,
  unassignUserTask,
  updateUserTask,
  completeUserTask,
} satisfies Record<string, Operation>;
