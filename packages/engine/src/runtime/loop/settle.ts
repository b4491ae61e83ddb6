import { obligationsOf } from '../../core/step/effects.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/process-types.js';
import type { JobWait, RetryWait, SettledOptions, SettledState } from '../base/settled-types.js';
import type {} from '../base/types.js';
import { adHocViews, callViews, externalId, incidentViews, userTaskView } from './views.js';

/** What the runtime is doing for an instance besides holding its state. */
export interface Activity {
  /** Steps queued or under way: one may have ended the instance without yet publishing what it did. */
  stepping: boolean;
  /** Handlers running, effects on their way (a thrown signal being delivered). */
  working: boolean;
  /** Effects on their way alone (an ended child's outcome being handed to its parent). */
  delivering: boolean;
  /** Jobs waiting out a retry backoff on the clock. */
  backingOff: Iterable<string>;
  /** The clock's reading: a timer or backoff due by now is about to fire, not a wait. */
  now: number;
}

/**
 * Whether an instance has settled: ended (once no step is under way), or running with nothing under way
 * and waiting only on the outside world or on time — BPMN timers and retry backoffs, unless `options` says
 * to wait those out. Undefined while it has not.
 */
export function settledState(
  state: InstanceState,
  process: ProcessDef | undefined,
  activity: Activity,
  options: SettledOptions = {},
): SettledState | undefined {
  const { instance } = state;
  // A run that yielded goes on at once: under way, as a queued step is.
  if (activity.stepping || (instance.status === 'running' && instance.drain)) return undefined;
  // An ended instance may still be telling its parent how it ended: settled once that is done (a handler
  // of a job the end cancelled may never answer, and is no one's to wait for).
  if (instance.status !== 'running') {
    return activity.delivering ? undefined : { instanceId: instance.id, status: instance.status };
  }
  if (activity.working) return undefined;
  // A safety net: a due timer's step is queued at once, so one seen here is moments from firing.
  for (const timer of state.timers.values()) if (timer.dueAt <= activity.now) return undefined;
  const retries = retryWaits(state, activity.backingOff);
  if (retries.some((retry) => retry.dueAt <= activity.now)) return undefined;
  if (options.retries === 'wait' && retries.length > 0) return undefined;
  if (options.timers === 'wait' && state.timers.size > 0) return undefined;
  return {
    instanceId: instance.id,
    status: 'waiting',
    userTasks: [...state.userTasks.values()].map((task) => userTaskView(state, process, task)),
    incidents: incidentViews(state),
    timers: [...state.timers.values()]
      .sort((a, b) => a.dueAt - b.dueAt)
      .map((timer) => ({ elementId: timer.nodeId, dueAt: timer.dueAt })),
    retries,
    subscriptions: [...state.subscriptions.values()].map((s) => ({
      elementId: s.nodeId,
      kind: s.kind,
      name: s.name,
      correlationKey: s.correlationKey,
    })),
    calls: callViews(state),
    adHocSubProcesses: adHocViews(state, process),
    jobs: jobWaits(state, activity.backingOff),
  };
}

/**
 * The jobs the instance waits on that no handler here runs or backs off: with nothing under way, those wait for a
 * worker outside the engine.
 */
function jobWaits(state: InstanceState, backingOff: Iterable<string>): JobWait[] {
  const here = new Set(backingOff);
  const waits: JobWait[] = [];
  for (const jobId of obligationsOf(state).jobs.values()) {
    const job = state.jobs.get(jobId);
    if (!job || here.has(jobId)) continue;
    waits.push({
      elementId: job.nodeId,
      jobId: externalId(state.instance.id, job.id),
      taskType: job.taskType,
      attempt: job.failures + 1,
      retries: job.retriesLeft,
      notBefore: job.notBefore,
    });
  }
  return waits;
}

/** The backoffs of jobs still in flight, earliest first (a job cancelled meanwhile waits on nothing). */
function retryWaits(state: InstanceState, jobIds: Iterable<string>): RetryWait[] {
  const retries: RetryWait[] = [];
  for (const jobId of jobIds) {
    const job = state.jobs.get(jobId);
    if (!job || job.notBefore === null) continue;
    retries.push({
      elementId: job.nodeId,
      jobId,
      taskType: job.taskType,
      attempt: job.failures + 1,
      dueAt: job.notBefore,
      error: job.lastError,
    });
  }
  return retries.sort((a, b) => a.dueAt - b.dueAt);
}

/** A parent's waits with those of a settled child added (an ended child adds nothing). */
export function withChildWaits(into: SettledState, child: SettledState): SettledState {
  if (into.status !== 'waiting' || child.status !== 'waiting') return into;
  return {
    ...into,
    userTasks: [...into.userTasks, ...child.userTasks],
    incidents: [...into.incidents, ...child.incidents],
    timers: [...into.timers, ...child.timers].sort((a, b) => a.dueAt - b.dueAt),
    retries: [...into.retries, ...child.retries].sort((a, b) => a.dueAt - b.dueAt),
    subscriptions: [...into.subscriptions, ...child.subscriptions],
    calls: [...into.calls, ...child.calls],
    adHocSubProcesses: [...into.adHocSubProcesses, ...child.adHocSubProcesses],
    jobs: [...into.jobs, ...child.jobs],
  };
}
