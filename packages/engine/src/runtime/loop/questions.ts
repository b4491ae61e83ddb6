import { NotFoundError } from '../../common/errors.js';
import type { LiveTouchpoint } from '../../common/touchpoint-types.js';
import type { InstanceState } from '../../core/step/state.js';
import { live } from '../../core/step/touchpoints.js';
import type { ProcessDef } from '../../model/process-types.js';
import { userTaskChoices } from '../../touchpoints/choices.js';
import { processPlan } from '../../touchpoints/plan.js';
import type { OperatorQuestion } from '../../touchpoints/types.js';
import type { UserTaskView } from '../base/types.js';
import { externalId, userTaskView } from './views.js';

/** The instance's touchpoints as they stand; null when it is not tracked (started before schema 7). */
export function liveTouchpoints(state: InstanceState, process: ProcessDef): LiveTouchpoint[] | null {
  return state.touchpoints?.map((record, index) => live({ process }, index, record)) ?? null;
}

function questionTask(view: UserTaskView): OperatorQuestion['task'] {
  const { name, assignee, candidateGroups, candidateUsers, dueDate, followUpDate, priority, denied } = view;
  return { name, assignee, candidateGroups, candidateUsers, dueDate, followUpDate, priority, denied };
}

/**
 * What an open user task asks: its options (from its form, else the exclusive gateway after it), its
 * touchpoint, and when a boundary timer on it fires.
 */
export function userTaskQuestion(
  state: InstanceState,
  process: ProcessDef,
  localTaskId: string,
  forms?: ReadonlyMap<string, unknown>,
): OperatorQuestion {
  const instanceId = state.instance.id;
  const task = state.userTasks.get(localTaskId);
  if (!task) throw new NotFoundError('userTask', externalId(instanceId, localTaskId));
  const { source, options } = userTaskChoices(process, task.nodeId, forms);
  const index = processPlan(process).byElement.get(task.nodeId);
  const record = index === undefined ? undefined : state.touchpoints?.[index];
  let dueAt: number | null = null;
  for (const timer of state.timers.values()) {
    const own = timer.owner.kind === 'boundary' && timer.owner.trackId === task.trackId;
    if (own && (dueAt === null || timer.dueAt < dueAt)) dueAt = timer.dueAt;
  }
  return {
    instanceId,
    taskId: externalId(instanceId, localTaskId),
    elementId: task.nodeId,
    touchpoint: record && index !== undefined ? live({ process }, index, record) : null,
    options,
    source,
    dueAt,
    task: questionTask(userTaskView(state, process, task)),
  };
}
