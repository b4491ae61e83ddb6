/**
 * The user task operations by key: read an open task, assign or unassign it, update it, complete it. The engine
 * runs the task listeners a transition has, as Zeebe does. A task is read from its instance, so it is never behind;
 * one that is no longer open (completed, cancelled) is a 404 until the search projection keeps closed tasks.
 */
import type { UserTaskView } from '@thresher/engine';
import { instanceKey } from '../keys.js';
import type { Call, Operation } from '../operation.js';
import { notFound } from '../problem.js';
import { readAssignment, readTaskCompletion, readTaskUpdate, readUnassignment } from '../schemas/user-tasks.js';
import { DEFAULT_TENANT } from '../tenants.js';

/** The open task a key names, with its instance's key parts, or a 404. */
async function taskOfKey({ engine, keys, params }: Call): Promise<{ task: UserTaskView; serial: number }> {
  const key = params.userTaskKey!;
  const found = await keys.instanceOf(key, 'path parameter userTaskKey');
  const view = found && found.local > 0 ? await engine.instance(found.instanceId) : undefined;
  const task = view?.userTasks.find((candidate) => candidate.id === `${found!.instanceId}/u${found!.local}`);
  if (view === undefined || task === undefined) throw notFound('user task', key);
  return { task, serial: await keys.serialOf(view.id, view.parentId) };
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

const STATES: Record<UserTaskView['state'], string> = {
  created: 'CREATED',
  creating: 'CREATING',
  assigning: 'ASSIGNING',
  updating: 'UPDATING',
  completing: 'COMPLETING',
  canceling: 'CANCELING',
};

/** `GET /user-tasks/{userTaskKey}`. */
const getUserTask: Operation = async (call) => {
  const { task, serial } = await taskOfKey(call);
  const view = (await call.engine.instance(task.instanceId))!;
  const definition = await call.catalog.findInDeployment(view.digest, view.processId);
  return {
    status: 200,
    body: {
      userTaskKey: call.params.userTaskKey!,
      name: task.name ?? task.elementId,
      state: STATES[task.state],
      assignee: task.assignee,
      elementId: task.elementId,
      candidateGroups: task.candidateGroups,
      candidateUsers: task.candidateUsers,
      processDefinitionId: view.processId,
      processName: definition?.name ?? view.processId,
      processDefinitionVersion: definition?.processDefinitionVersion,
      processDefinitionKey: definition?.processDefinitionKey,
      processInstanceKey: instanceKey(serial),
      creationDate: new Date(task.createdAt).toISOString(),
      ...(task.dueDate === null ? {} : { dueDate: task.dueDate }),
      ...(task.followUpDate === null ? {} : { followUpDate: task.followUpDate }),
      tenantId: DEFAULT_TENANT,
      customHeaders: task.headers,
      priority: task.priority,
    },
  };
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

export const userTaskOperations = {
  getUserTask,
  assignUserTask,
  unassignUserTask,
  updateUserTask,
  completeUserTask,
} satisfies Record<string, Operation>;
