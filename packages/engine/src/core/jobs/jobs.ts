import { digestInputs, type JobRecord, type TrackRecord, type Variables } from '@thresher/checkpoint';
import { nextId, type StepContext } from '../step/context.js';
import { newJob } from '../step/records.js';
import type { InstanceState } from '../step/state.js';
import { invocationIdentity, listenerKey } from '../step/step-identity.js';
import { move } from '../step/tracks.js';

/**
 * Jobs: the one place a track's job is made — an element's own (a handler does its work) or an execution
 * listener's (a job of its own kind, `listener` saying which) — and the variables a job is run with.
 */

/** What a new job is created with. */
export interface JobSpec {
  taskType: string;
  retries: number | undefined;
}

/**
 * The variables a job of `track` is run with: every variable visible to its element and the element's locals
 * — for an end listener also what the element produced, which Zeebe holds on the element while it ends.
 */
export function jobVariables(state: InstanceState, track: TrackRecord, listener?: JobRecord['listener']): Variables {
  const produced = listener?.eventType === 'end' ? track.result : null;
  return { ...state.visible(track.scopePath), ...track.locals, ...produced };
}

/**
 * The variables a task listener's job runs with: what its user task sees, and the variables a completion
 * carries over them, as Zeebe gives them to a completing listener.
 */
export function taskListenerVariables(state: InstanceState, track: TrackRecord, taskId: string): Variables {
  const carried = state.userTasks.get(taskId)?.transition?.variables;
  return { ...state.visible(track.scopePath), ...track.locals, ...carried };
}

/** The variables `job` runs with, whichever kind it is. */
export function variablesOfJob(state: InstanceState, job: JobRecord): Variables {
  const track = state.track(job.trackId);
  return job.taskListener
    ? taskListenerVariables(state, track, job.taskListener.taskId)
    : jobVariables(state, track, job.listener);
}

/** The track waits on a new job; the runtime dispatches it once this step is durable. */
export function createJob(ctx: StepContext, track: TrackRecord, spec: JobSpec, listener?: JobRecord['listener']): void {
  const jobId = addJob(ctx, track, spec, jobVariables(ctx.state, track, listener), listener ? { listener } : {});
  track.wait = { kind: 'job', jobId };
  move(ctx, track, listener ? 'LISTEN' : 'WAIT');
}

/**
 * A task listener's job: its track keeps waiting on its user task, whose transition names the job (the runtime
 * dispatches it once this step is durable). `variables` are what the job runs with. Returns the job's id.
 */
export function createTaskListenerJob(
  ctx: StepContext,
  track: TrackRecord,
  spec: JobSpec,
  taskListener: NonNullable<JobRecord['taskListener']>,
  variables: Variables,
): string {
  return addJob(ctx, track, spec, variables, { taskListener });
}

function addJob(
  ctx: StepContext,
  track: TrackRecord,
  spec: JobSpec,
  variables: Variables,
  kind: Pick<JobRecord, 'listener' | 'taskListener'>,
): string {
  const inputDigest = digestInputs(variables);
  const identity = invocationIdentity(ctx.state.instance, track, inputDigest, listenerKey(kind));
  const jobId = nextId(ctx, 'j');
  const job = newJob(jobId, track, spec.taskType, identity, inputDigest, spec.retries ?? ctx.defaultRetries);
  Object.assign(job, kind);
  ctx.state.write('jobs').set(jobId, job);
  return jobId;
}
