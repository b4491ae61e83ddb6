import type { TrackRecord, UserTaskRecord, Variables } from '@thresher/checkpoint';
import { InvalidArgumentError, InvalidStateError, NotFoundError } from '../../common/errors.js';
import type { UserTaskNode } from '../../model/node-types.js';
import { taskListenersOf } from '../../model/process-types.js';
import { nextId, type StepContext } from '../step/context.js';
import { move } from '../step/tracks.js';
import { CORRECTABLE, changedBy, fieldsOf, initialFields } from './user-task-fields.js';
import { beginTransition, created } from './user-task-transitions.js';

/**
 * User tasks: made when a track reaches one, then assigned, updated and completed by callers — each through
 * the task's listeners when it has some (`user-task-transitions.ts`); a transition without listeners takes
 * effect at once.
 */

/** The track waits at a new user task; its creating listeners run first, when it has some. */
export function createUserTask(ctx: StepContext, track: TrackRecord, node: UserTaskNode): void {
  const fields = initialFields(ctx, track, node);
  if (!fields) return;
  const taskId = nextId(ctx, 'u');
  const task: UserTaskRecord = {
    id: taskId,
    trackId: track.id,
    nodeId: node.id,
    name: node.name,
    assignee: null,
    createdAt: ctx.now,
  };
  ctx.state.userTasks.set(taskId, task);
  track.wait = { kind: 'userTask', taskId };
  move(ctx, track, 'WAIT');
  if (taskListenersOf(ctx.process, node.id, 'creating').length === 0) {
    Object.assign(task, fields);
    return created(ctx, task);
  }
  beginTransition(ctx, task, 'creating', '', fields, fields.assignee === null ? {} : { assignee: fields.assignee });
}

/** The user task of `taskId`, free for a new transition: one under way refuses another, as in Zeebe. */
function freeTask(ctx: StepContext, taskId: string, asked: string): UserTaskRecord {
  const task = ctx.state.userTasks.get(taskId);
  if (!task) throw new NotFoundError('userTask', `${ctx.id}/${taskId}`);
  if (task.transition) {
    throw new InvalidStateError(
      `cannot ${asked} user task "${ctx.id}/${taskId}": it is ${task.transition.event} (its ${task.transition.event} listeners are running); try again once they finish`,
    );
  }
  return task;
}

/** Complete a user task with `variables`: once its completing listeners allowed it, its track leaves it. */
export function completeUserTask(ctx: StepContext, taskId: string, variables: Variables, action: string): void {
  const task = freeTask(ctx, taskId, 'complete');
  beginTransition(ctx, task, 'completing', action, fieldsOf(task), { variables });
}

/**
 * Assign a user task to `assignee` (null: unassign it). `allowOverride` false refuses a task someone else has
 * (a claim). Its assigning listeners run first, when it has some.
 */
export function assignUserTask(
  ctx: StepContext,
  taskId: string,
  assignee: string | null,
  action: string,
  allowOverride: boolean,
): void {
  const task = freeTask(ctx, taskId, assignee === null ? 'unassign' : 'assign');
  if (!allowOverride && task.assignee !== null && task.assignee !== assignee) {
    throw new InvalidStateError(
      `cannot claim user task "${ctx.id}/${taskId}" for "${assignee}": it is assigned to "${task.assignee}"`,
    );
  }
  beginTransition(ctx, task, 'assigning', action, { ...fieldsOf(task), assignee: assignee === '' ? null : assignee });
}

/** What `updateUserTask` may change: every correctable field but the assignee (assigning changes that). */
const UPDATABLE = CORRECTABLE.filter((name) => name !== 'assignee');

/**
 * Change a user task's candidates, dates or priority (`changes`; null or '' clears a field). Its updating
 * listeners run first, when it has some. A change that does not fit its field throws, changing nothing.
 */
export function updateUserTask(
  ctx: StepContext,
  taskId: string,
  changes: Record<string, unknown>,
  action: string,
): void {
  const task = freeTask(ctx, taskId, 'update');
  let requested: ReturnType<typeof fieldsOf>;
  try {
    requested = changedBy(fieldsOf(task), changes, UPDATABLE);
  } catch (error) {
    throw new InvalidArgumentError(`cannot update user task "${ctx.id}/${taskId}": ${(error as Error).message}`);
  }
  beginTransition(ctx, task, 'updating', action, requested);
}
