import type { TrackRecord } from '@thresher/checkpoint';
import { IllegalTransitionError } from '../../common/errors.js';
import { advanceSweep, moveBy, type Performers, type SweepAction } from '../../machines/index.js';
import type { StepContext } from '../step/context.js';
import { postCancelChild } from '../step/outbox.js';
import { ownedBy } from '../step/state.js';
import { touchpointInterrupted } from '../step/touchpoints.js';
import { move } from '../step/tracks.js';
import { startCanceling } from '../user-tasks/terminations.js';
import { terminateScope } from './scope-moves.js';

/** A cancelled sweep runs nothing more and finishes nothing: its machine names no action for `CANCEL`. */
const SWEEP_CANCELLED: Performers<SweepAction, StepContext, TrackRecord> = {
  runEntry: () => stoppedSweepActs('runEntry'),
  finish: () => stoppedSweepActs('finish'),
};

function stoppedSweepActs(action: SweepAction): never {
  throw new IllegalTransitionError('sweep', 'cancelled', `${action} (a cancelled sweep performs nothing)`);
}

/** Cancel everything inside the scope at `path`: its inner scopes, then its live tracks. */
export function cancelInside(ctx: StepContext, path: string): void {
  for (const scope of [...ctx.state.scopes.values()]) {
    if (scope.parentPath !== path) continue;
    cancelInside(ctx, scope.path);
    terminateScope(ctx, scope);
  }
  for (const track of ctx.state.liveTracks(path)) cancel(ctx, track);
}

/**
 * Cancel a track where it is: its job, user task, inner scope, incident, timers and subscriptions go — but a
 * user task with canceling listeners, which terminates once they ran (`terminations.ts`).
 */
export function cancel(ctx: StepContext, track: TrackRecord): void {
  // A user task with canceling listeners terminates once they ran; what cancelled it learns so (`ctx.terminating`).
  if (startCanceling(ctx, track)) return;
  const { state } = ctx;
  const wait = track.wait;
  if (wait?.kind === 'job') state.write('jobs').delete(wait.jobId);
  // A user task goes with its transition's listener job, whether the track waits on it or on an incident of it.
  const task = state.taskOf(track);
  if (task) {
    if (task.transition?.jobId) state.write('jobs').delete(task.transition.jobId);
    state.userTasks.delete(task.id);
  }
  // A looping host's bodies and a sweep's running handler are scopes the track hosts.
  if (wait?.kind === 'loop' || wait?.kind === 'sweep') {
    for (const scope of [...state.scopes.values()]) {
      if (scope.hostTrack !== track.id) continue;
      cancelInside(ctx, scope.path);
      terminateScope(ctx, scope);
    }
    delete track.loop;
    // A sweep stops with its thrower: its running handler's scope went above; its queue is dropped, not
    // compensated (docs/design/compensation.md). The machine checks it may stop here, and says what follows.
    if (track.sweep) moveBy(advanceSweep, track.sweep, 'CANCEL', SWEEP_CANCELLED, ctx, track);
    delete track.sweep;
  }
  // The child goes with its call, once this step is durable (the engine cancels it idempotently).
  if (wait?.kind === 'call') postCancelChild(ctx, wait.childId);
  if (wait?.kind === 'scope') {
    cancelInside(ctx, wait.path);
    const scope = state.scopes.get(wait.path);
    if (scope) terminateScope(ctx, scope);
  }
  state.dropWaits(ownedBy(track.id));
  if (wait?.kind === 'incident') state.dropIncident(wait.incidentId);
  track.wait = null;
  touchpointInterrupted(ctx, track);
  move(ctx, track, 'CANCEL');
}
