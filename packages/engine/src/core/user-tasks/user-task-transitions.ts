import type { JobRecord, UserTaskEvent, UserTaskFields, UserTaskRecord, Variables } from '@thresher/checkpoint';
import { taskListenersOf } from '../../model/process-types.js';
import { jobSpec } from '../jobs/job-spec.js';
import { createTaskListenerJob, taskListenerVariables } from '../jobs/jobs.js';
import { announce, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import { move } from '../step/tracks.js';
import { CORRECTABLE, changedBy, changedFields, fieldsOf, setFields } from './user-task-fields.js';

/**
 * A user task's lifecycle transitions — creating, assigning, updating, completing — and the task listeners
 * (`zeebe:taskListener`, Camunda 8.8) that run in them, as Zeebe runs them: jobs of their own kind, one at a
 * time in model order, the transition waiting on each. A listener may correct the task's fields (the next one
 * sees them) or deny the transition (assigning, updating, completing): the task is then as it was before,
 * corrections and a completion's variables dropped. Where a transition stands is on the task's record, so a
 * restore picks up at the listener it stopped at; its track waits on the task throughout.
 */

/**
 * Begin `event` on `task`: its fields become `requested`, and its listeners run; with none, it finishes at
 * once. `variables` are a completion's.
 */
export function beginTransition(
  ctx: StepContext,
  task: UserTaskRecord,
  event: UserTaskEvent,
  action: string,
  requested: UserTaskFields,
  extra: { variables?: Variables; assignee?: string } = {},
): void {
  task.transitions = (task.transitions ?? 0) + 1;
  delete task.denied;
  task.transition = { event, action, before: fieldsOf(task), requested, done: 0, ...extra };
  setFields(task, requested);
  runTaskListeners(ctx, task);
}

/**
 * Run the transition's next listener as a job, or finish the transition once every one completed. A listener
 * whose type or retries fail to evaluate raises an incident; its retry runs the transition again from its
 * first listener (`retryTransition`), as Zeebe does.
 */
export function runTaskListeners(ctx: StepContext, task: UserTaskRecord): void {
  const transition = task.transition!;
  const listener = taskListenersOf(ctx.process, task.nodeId, transition.event)[transition.done];
  if (!listener) return finishTransition(ctx, task);
  const track = ctx.state.track(task.trackId);
  const view = taskListenerVariables(ctx.state, track, task.id);
  const spec = jobSpec(ctx, track, listener, `${transition.event} zeebe:taskListener`, 'task', view);
  if (!spec) return;
  const position = { taskId: task.id, eventType: transition.event, index: transition.done, round: roundOf(task) };
  transition.jobId = createTaskListenerJob(ctx, track, spec, position, view);
}

/** The round of the task's latest transition (the one under way, or the one that just ended). */
function roundOf(task: UserTaskRecord): number {
  return (task.transitions ?? 1) - 1;
}

/** An incident of a listener's expression is retried: the transition starts again from its first listener. */
export function retryTransition(ctx: StepContext, task: UserTaskRecord): void {
  const transition = task.transition!;
  setFields(task, transition.requested);
  transition.done = 0;
  delete transition.jobId;
  runTaskListeners(ctx, task);
}

/** What a task listener's job returned, read: or why it cannot be taken (an incident says so). */
type ListenerResult =
  | { denied: boolean; reason: string | null; corrections: Record<string, unknown> }
  | { refused: string };

/**
 * A task listener's job completed: its corrections are applied and the next listener runs — or it denied the
 * transition. A result that cannot be taken (variables, a correction that does not fit, a denial Zeebe does
 * not allow) changes nothing: the reason is returned, and the caller fails the job with it (an incident, whose
 * retry runs the listener again). Null when the result was taken (`accepted` is called first, before any change).
 */
export function taskListened(ctx: StepContext, job: JobRecord, result: Variables, accepted: () => void): string | null {
  const { taskId, index } = job.taskListener!;
  const task = ctx.state.userTasks.get(taskId)!;
  const transition = task.transition!;
  const read = readResult(transition.event, result);
  if ('refused' in read) return read.refused;
  let corrected: UserTaskFields;
  try {
    corrected = changedBy(fieldsOf(task), read.corrections, CORRECTABLE);
  } catch (error) {
    return `the ${transition.event} listener "${job.taskType}" returned a correction that does not fit: ${(error as Error).message}`;
  }
  if (transition.event === 'creating' && transition.assignee !== undefined && 'assignee' in read.corrections) {
    return `the creating listener "${job.taskType}" corrected the assignee, which the process already gives ("${transition.assignee}"): as in Zeebe, a creating listener may set an assignee only where the process gives none; correct it in an assigning listener`;
  }
  accepted();
  ctx.state.write('jobs').delete(job.id);
  delete transition.jobId;
  transition.done = index + 1;
  if (read.denied) {
    deny(ctx, task, read.reason);
    return null;
  }
  setFields(task, corrected);
  runTaskListeners(ctx, task);
  return null;
}

function readResult(event: UserTaskEvent, result: Variables): ListenerResult {
  const extra = Object.keys(result).filter((key) => !['denied', 'deniedReason', 'corrections'].includes(key));
  if (extra.length > 0) {
    return {
      refused: `a task listener's job takes no variables, as in Zeebe (it returned ${extra.map((key) => `"${key}"`).join(', ')}): return { corrections: { … } } to correct the task, or { denied: true, deniedReason } to deny the ${event} transition`,
    };
  }
  const { denied = false, deniedReason = null, corrections = {} } = result as Record<string, unknown>;
  if (typeof denied !== 'boolean')
    return { refused: `a task listener's "denied" must be true or false, not ${JSON.stringify(denied)}` };
  if (deniedReason !== null && typeof deniedReason !== 'string') {
    return { refused: `a task listener's "deniedReason" must be a string, not ${JSON.stringify(deniedReason)}` };
  }
  if (typeof corrections !== 'object' || corrections === null || Array.isArray(corrections)) {
    return { refused: `a task listener's "corrections" must be an object of fields (${CORRECTABLE.join(', ')})` };
  }
  if (denied && Object.keys(corrections).length > 0) {
    return {
      refused:
        'a task listener denied the transition and corrected the task at once: a denial drops every correction, as in Zeebe; return either corrections or a denial',
    };
  }
  if (denied && (event === 'creating' || event === 'canceling')) {
    const what = event === 'creating' ? 'creation' : 'cancellation';
    return {
      refused: `a ${event} listener cannot deny the task's ${what}, as in Zeebe: only assigning, updating and completing can be denied`,
    };
  }
  return { denied, reason: deniedReason as string | null, corrections: corrections as Record<string, unknown> };
}

/** A listener denied the transition: the task is as it was before it; its round is over. */
function deny(ctx: StepContext, task: UserTaskRecord, reason: string | null): void {
  const transition = task.transition!;
  setFields(task, transition.before);
  delete task.transition;
  task.denied = { event: transition.event, reason };
  announce(ctx, {
    id: eventId(ctx.id, 'userTask.denied', task.id, roundOf(task)),
    type: 'userTask.denied',
    taskId: task.id,
    elementId: task.nodeId,
    event: transition.event,
    reason,
  });
}

/** Every listener allowed the transition: it takes effect. */
function finishTransition(ctx: StepContext, task: UserTaskRecord): void {
  const transition = task.transition!;
  delete task.transition;
  const round = roundOf(task);
  switch (transition.event) {
    case 'creating':
      return created(ctx, task);
    case 'assigning':
      return announce(ctx, {
        id: eventId(ctx.id, 'userTask.assigned', task.id, round),
        type: 'userTask.assigned',
        taskId: task.id,
        elementId: task.nodeId,
        assignee: task.assignee,
      });
    case 'updating':
      return announce(ctx, {
        id: eventId(ctx.id, 'userTask.updated', task.id, round),
        type: 'userTask.updated',
        taskId: task.id,
        elementId: task.nodeId,
        changed: changedFields(transition.before, fieldsOf(task)),
      });
    case 'completing':
      return completed(ctx, task, transition.variables ?? {});
    case 'canceling':
      return canceled(ctx, task);
  }
}

/** Every canceling listener ran: the task goes, and its track is cancelled at last (`held.ts` takes it up). */
function canceled(ctx: StepContext, task: UserTaskRecord): void {
  const track = ctx.state.track(task.trackId);
  ctx.state.userTasks.delete(task.id);
  track.wait = null;
  announce(ctx, {
    id: eventId(ctx.id, 'userTask.canceled', task.id),
    type: 'userTask.canceled',
    taskId: task.id,
    elementId: task.nodeId,
  });
  move(ctx, track, 'CANCEL');
  ctx.terminated.push({ trackId: track.id, scopePath: track.scopePath });
}

/**
 * The task is created: announced, then — when it has an assignee (the model's, or a creating listener's) —
 * assigned through its assigning listeners, as Zeebe assigns a task after creating it.
 */
export function created(ctx: StepContext, task: UserTaskRecord): void {
  announce(ctx, {
    id: eventId(ctx.id, 'userTask.created', task.id),
    type: 'userTask.created',
    taskId: task.id,
    elementId: task.nodeId,
  });
  const { assignee } = task;
  if (assignee === null || taskListenersOf(ctx.process, task.nodeId, 'assigning').length === 0) return;
  task.assignee = null;
  beginTransition(ctx, task, 'assigning', '', { ...fieldsOf(task), assignee });
}

/** The task is done: its track leaves it with the variables it was completed with. */
export function completed(ctx: StepContext, task: UserTaskRecord, variables: Variables): void {
  const track = ctx.state.track(task.trackId);
  ctx.state.userTasks.delete(task.id);
  track.result = variables;
  track.wait = null;
  announce(ctx, {
    id: eventId(ctx.id, 'userTask.completed', task.id),
    type: 'userTask.completed',
    taskId: task.id,
    elementId: task.nodeId,
  });
  move(ctx, track, 'RESUME');
}
