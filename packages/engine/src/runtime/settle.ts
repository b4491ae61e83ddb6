import type { SettledState } from '../api-types.js';
import type { InstanceState } from '../core/state.js';
import { incidentViews, userTaskView } from './views.js';

/** What the runtime is doing for an instance besides holding its state. */
export interface Activity {
  /** Steps queued or under way: one may have ended the instance without yet publishing what it did. */
  stepping: boolean;
  /** Handlers running or backing off, effects on their way (a thrown signal being delivered). */
  working: boolean;
  /** The clock's reading: a timer due by now is about to fire, not a wait. */
  now: number;
}

/**
 * Whether an instance has settled: ended (once no step is under way), or running with nothing under way
 * and waiting only on the outside world — or, with `timers: 'wait'`, on no BPMN timer either. Undefined
 * while it has not.
 */
export function settledState(
  state: InstanceState,
  activity: Activity,
  timers: 'park' | 'wait',
): SettledState | undefined {
  const { instance } = state;
  if (activity.stepping) return undefined;
  if (instance.status !== 'running') return { instanceId: instance.id, status: instance.status };
  if (activity.working) return undefined;
  // A safety net: a due timer's step is queued at once, so one seen here is moments from firing.
  for (const timer of state.timers.values()) if (timer.dueAt <= activity.now) return undefined;
  if (timers === 'wait' && state.timers.size > 0) return undefined;
  return {
    instanceId: instance.id,
    status: 'waiting',
    userTasks: [...state.userTasks.values()].map((task) => userTaskView(state, task)),
    incidents: incidentViews(state),
    timers: [...state.timers.values()]
      .sort((a, b) => a.dueAt - b.dueAt)
      .map((timer) => ({ elementId: timer.nodeId, dueAt: timer.dueAt })),
    subscriptions: [...state.subscriptions.values()].map((s) => ({
      elementId: s.nodeId,
      kind: s.kind,
      name: s.name,
      correlationKey: s.correlationKey,
    })),
  };
}
