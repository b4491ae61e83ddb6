import { digestInputs, type JobRecord, type TrackRecord, type Variables } from '@thresher/checkpoint';
import { nextId, type StepContext } from './context.js';
import { newJob } from './records.js';
import type { InstanceState } from './state.js';
import { invocationIdentity } from './step-identity.js';
import { move } from './tracks.js';

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

/** The track waits on a new job; the runtime dispatches it once this step is durable. */
export function createJob(ctx: StepContext, track: TrackRecord, spec: JobSpec, listener?: JobRecord['listener']): void {
  const inputDigest = digestInputs(jobVariables(ctx.state, track, listener));
  const identity = invocationIdentity(ctx.state.instance, track, inputDigest, listener);
  const jobId = nextId(ctx, 'j');
  const job = newJob(jobId, track, spec.taskType, identity, inputDigest, spec.retries ?? ctx.defaultRetries);
  if (listener) job.listener = listener;
  ctx.state.write('jobs').set(jobId, job);
  track.wait = { kind: 'job', jobId };
  move(ctx, track, listener ? 'LISTEN' : 'WAIT');
}
