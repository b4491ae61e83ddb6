import { checkEncodable, type JobRecord, type UserTaskRecord, type Variables } from '@thresher/checkpoint';
import { BpmnError, InvalidStateError, NotFoundError } from '../../common/errors.js';
import { variablesOfJob } from '../../core/jobs/jobs.js';
import { dispatchKey, obligationsOf } from '../../core/step/effects.js';
import type { InstanceState } from '../../core/step/state.js';
import { changedFields, fieldsOf, zeebeFieldName } from '../../core/user-tasks/user-task-fields.js';
import type { ProcessDef } from '../../model/process-types.js';
import type { Handlers, Job, TaskListenerJobTask } from '../base/types.js';
import { ownHeaders } from './job-headers.js';
import { externalId, fieldsView } from './views.js';

/** How a handler call ended: its variables, or why it failed and whether a retry may help. */
export type Outcome = { result: Variables } | { error: string; retryable: boolean; errorCode?: string };

/**
 * What a handler is given for one attempt of a job. An execution listener's job names its event; its headers
 * are its element's with the listener's own over them, as Camunda documents. A task listener's job names its
 * user task event and carries the task as it stands (`userTask`), and Zeebe's `io.camunda.zeebe:` headers
 * over the user task's own.
 */
export function jobView(state: InstanceState, process: ProcessDef, job: JobRecord): Job {
  const node = process.nodes.get(job.nodeId);
  const task = job.taskListener && state.userTasks.get(job.taskListener.taskId);
  const userTask = task ? taskListenerView(state, task) : undefined;
  const event = job.listener?.eventType ?? job.taskListener?.eventType;
  return {
    id: job.id,
    instanceId: state.instance.id,
    elementId: job.nodeId,
    // A process's own listeners run at the process: their element is the process.
    elementName: job.nodeId === process.id ? process.name : (node?.name ?? null),
    taskType: job.taskType,
    headers: userTask ? { ...ownHeaders(process, job), ...zeebeHeaders(userTask) } : ownHeaders(process, job),
    variables: variablesOfJob(state, job),
    idempotencyKey: job.identity,
    attempt: job.failures + 1,
    businessKey: state.instance.businessKey,
    ...(event ? { listener: { eventType: event } } : {}),
    ...(userTask ? { userTask } : {}),
  };
}

/** The user task a task listener's job runs for, as the listener sees it: its fields with what the transition changed. */
function taskListenerView(state: InstanceState, task: UserTaskRecord): TaskListenerJobTask {
  const transition = task.transition;
  return {
    id: externalId(state.instance.id, task.id),
    ...fieldsView(task),
    action: transition?.action ?? '',
    changedAttributes: transition ? changedFields(transition.before, fieldsOf(task)) : [],
  };
}

/** Zeebe's headers of a task listener's job (`io.camunda.zeebe:…`): a field that is empty has none. */
function zeebeHeaders(task: TaskListenerJobTask): Record<string, string> {
  const headers: Record<string, string> = { 'io.camunda.zeebe:userTaskKey': task.id };
  const put = (name: string, value: string | null) => {
    if (value) headers[`io.camunda.zeebe:${name}`] = value;
  };
  put('action', task.action);
  put('assignee', task.assignee);
  if (task.candidateGroups.length > 0) put('candidateGroups', JSON.stringify(task.candidateGroups));
  if (task.candidateUsers.length > 0) put('candidateUsers', JSON.stringify(task.candidateUsers));
  put('dueDate', task.dueDate);
  put('followUpDate', task.followUpDate);
  put('priority', String(task.priority));
  const changed = task.changedAttributes.map(zeebeFieldName);
  if (changed.length > 0) put('changedAttributes', JSON.stringify(changed.sort()));
  return headers;
}

/**
 * Call the handler of the job's task type and classify how it ended; never rejects. A thrown `BpmnError`
 * is a BPMN error (not retried); anything else thrown, or a result that is not an object of storable
 * variables, is a failure a retry may mend. No handler for the type is a configuration error no retry
 * mends: it fails at once, naming the handlers there are.
 */
export async function callHandler(handlers: Handlers, job: Job): Promise<Outcome> {
  // Own keys only: a task type named `toString` must not find Object.prototype's.
  const handler = Object.hasOwn(handlers, job.taskType) ? handlers[job.taskType] : undefined;
  if (typeof handler !== 'function') return { error: noHandler(job.taskType, handlers), retryable: false };
  try {
    return checkResult(job.taskType, await handler(job));
  } catch (error) {
    return BpmnError.is(error)
      ? { error: error.message, retryable: false, errorCode: error.errorCode }
      : { error: describe(error), retryable: true };
  }
}

/**
 * Refuse a worker's word on a job the instance no longer waits on: gone (`NotFoundError`), or failed into an
 * incident (`InvalidStateError`). `shownId` names the job in the refusal.
 */
export function assertWaitsOnJob(state: InstanceState, jobId: string, shownId: string): void {
  const job = state.jobs.get(jobId);
  if (!job || state.instance.status !== 'running') throw new NotFoundError('job', shownId);
  if (!obligationsOf(state).jobs.has(dispatchKey(job))) {
    throw new InvalidStateError(
      `job ${shownId} is not waiting for a worker: it failed with no retries left and waits on an incident (resolve it first)`,
    );
  }
}

/** Whether a function is registered for the task type (own keys only, as `callHandler` looks it up). */
export function hasHandler(handlers: Handlers, taskType: string): boolean {
  return Object.hasOwn(handlers, taskType) && typeof handlers[taskType] === 'function';
}

/** Why a job has no handler, and how to give it one. */
function noHandler(taskType: string, handlers: Handlers): string {
  const registered = Object.keys(handlers).filter((type) => typeof handlers[type] === 'function');
  const known =
    registered.length === 0 ? 'no handlers are registered' : `handlers are registered for: ${registered.join(', ')}`;
  const type = JSON.stringify(taskType);
  return `no handler for task type ${type}; ${known} (register one with engine.handle(${type}, …) or new Engine({ handlers }))`;
}

function checkResult(taskType: string, result: unknown): Outcome {
  if (result === undefined || result === null) return { result: {} };
  if (typeof result !== 'object' || Array.isArray(result)) {
    return {
      error: `the handler for "${taskType}" returned ${Array.isArray(result) ? 'an array' : typeof result}; return an object of variables`,
      retryable: true,
    };
  }
  try {
    checkEncodable(result, '$result');
  } catch (error) {
    return { error: describe(error), retryable: true };
  }
  return { result: result as Variables };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
