import { jobCompleted, jobFailed, jobUpdated } from './activities.js';
import { activateElements } from './composites/ad-hoc.js';
import { callEnded, callFailed } from './composites/calls.js';
import { endTerminations } from './composites/held.js';
import { closeDrainedScopes } from './composites/scopes.js';
import { terminate } from './composites/throws.js';
import { enter } from './enter.js';
import { fireConditions } from './events/conditions.js';
import { beginScope } from './events/event-subprocesses.js';
import { correlateMessage, receiveSignal } from './events/messages.js';
import { fireTimer } from './events/timers.js';
import { fireInclusiveJoins } from './gateways.js';
import { raiseIncident, retryIncident } from './jobs/incidents.js';
import { leave } from './leave.js';
import { migrateInstance } from './migrate.js';
import { modifyInstance } from './modify.js';
import { startScopeListeners } from './scoping/scope-listeners.js';
import { announce, type CoreContext, createStepContext, type StepContext } from './step/context.js';
import { type Effect, effectsBetween, type Obligations, obligationsOf } from './step/effects.js';
import { eventId } from './step/event-ids.js';
import type { InstanceEvent } from './step/instance-event.js';
import { delivered } from './step/outbox.js';
import { setVariables } from './step/set-variables.js';
import type { InstanceState } from './step/state.js';
import { observeTouchpoints, planTouchpoints } from './step/touchpoints.js';
import { retryTransition } from './user-tasks/user-task-transitions.js';
import { assignUserTask, completeUserTask, updateUserTask } from './user-tasks/user-tasks.js';

/**
 * The engine's core: apply events to one instance, each running every track it frees until each waits or
 * ends. It reads only the model, the state and `ctx.now`; it mutates the state and returns the effects the
 * runtime performs once the new state is durable — the step's announcements, and the difference between
 * what the instance owed before (`owed`, by default what its state owes now) and what it owes after. A
 * restore passes `NOTHING_OWED`, so it gets everything its state holds. No I/O, no wall clock, no randomness.
 */
export function applyEvents(
  core: CoreContext,
  state: InstanceState,
  events: readonly InstanceEvent[],
  owed: Obligations = obligationsOf(state),
): Effect[] {
  const announcements: Effect[] = [];
  for (const event of events) {
    const ctx = createStepContext(core, state, announcements, observeTouchpoints);
    apply(ctx, event);
    drain(ctx);
  }
  return effectsBetween(owed, obligationsOf(state), announcements);
}

function apply(ctx: StepContext, event: InstanceEvent): void {
  switch (event.type) {
    case 'instance.start':
      ctx.presetTimer = event.timer;
      return start(ctx, event.variables, event.startNode);
    case 'instance.cancel':
      return terminate(ctx, '/', '');
    case 'instance.migrate':
      return migrateInstance(ctx, event);
    case 'instance.modify':
      return modifyInstance(ctx, event);
    case 'instance.continue':
      return; // the drain takes the yielded run up
    case 'job.completed':
      return jobCompleted(ctx, event.jobId, event.result, event.worker === true);
    case 'job.failed':
      return jobFailed(ctx, event.jobId, event.error, event.retryable, event.errorCode, event);
    case 'job.updated':
      return jobUpdated(ctx, event.jobId, event.retries);
    case 'timer.fired':
      return fireTimer(ctx, event.timerId);
    case 'message.correlated':
      return correlateMessage(ctx, event);
    case 'signal.received':
      return receiveSignal(ctx, event);
    case 'outbox.delivered':
      return delivered(ctx, event.entryId);
    case 'userTask.completed':
      return completeUserTask(ctx, event.taskId, event.variables, event.action ?? 'complete');
    case 'userTask.assign':
      return assignUserTask(ctx, event.taskId, event.assignee, event.action, event.allowOverride);
    case 'userTask.update':
      return updateUserTask(ctx, event.taskId, event.changes, event.action);
    case 'adHoc.activate':
      return activateElements(ctx, event.hostId, event.elements);
    case 'variables.set':
      return setVariables(ctx, event);
    case 'incident.retry':
      return retryIncident(ctx, event.incidentId, (task) => retryTransition(ctx, task));
    case 'call.failed':
      return callFailed(ctx, event.childId, event.error);
    case 'call.ended':
      return callEnded(ctx, event.childId, event.entryId, event.outcome);
  }
}

function start(ctx: StepContext, variables: Record<string, unknown>, startNode: string): void {
  Object.assign(ctx.state.scope('/').data, variables);
  announce(ctx, { id: eventId(ctx.id, 'instance.started'), type: 'instance.started', processId: ctx.process.id });
  planTouchpoints(ctx);
  // The process's start listeners run before its start event, and before its event sub-processes wait.
  if (startScopeListeners(ctx, '/', startNode, null)) return;
  beginScope(ctx, '/', startNode, null);
}

/**
 * Move every runnable track until each waits or ends, then settle joins and drained scopes. Tracks that
 * ended go once the agenda is empty: a long loop within one step never scans its finished passes again.
 *
 * A run that the instance yielded before (`drain`) is taken up first, its tracks first on the agenda. Every
 * `yieldAfter` moves the run yields: its tracks still to move are kept in the state, written at the persist
 * point that ends the step, and taken up by the next step (`instance.continue`) once other work had its turn.
 * A run that makes `stepLimit` moves without waiting stops: each track still to move gets a `step-limit`
 * incident, whose retry lets it run again.
 */
function drain(ctx: StepContext): void {
  const { instance } = ctx.state;
  let moves = instance.drain?.moves ?? 0;
  if (instance.drain) ctx.agenda.unshift(...instance.drain.agenda);
  delete instance.drain;
  let sinceYield = 0;
  for (;;) {
    while (ctx.agenda.length > 0) {
      if (moves >= ctx.stepLimit) {
        stopRun(ctx, moves);
        break;
      }
      // Only between whole moves of the step's own bookkeeping: an event-based gateway's decision or a
      // retried entry is consumed by the move that follows it, within this step.
      const yieldNow = sinceYield >= ctx.yieldAfter && instance.status === 'running';
      if (yieldNow && ctx.decided.size === 0 && ctx.reentering.size === 0) {
        instance.drain = { agenda: ctx.agenda.splice(0), moves };
        for (const id of ctx.retired.splice(0)) ctx.state.tracks.delete(id);
        return;
      }
      const track = ctx.state.tracks.get(ctx.agenda.shift()!);
      if (track?.state === 'entering') enter(ctx, track);
      else if (track?.state === 'leaving') leave(ctx, track);
      else continue;
      moves++;
      sinceYield++;
    }
    for (const id of ctx.retired.splice(0)) ctx.state.tracks.delete(id);
    if (!endTerminations(ctx) && !fireInclusiveJoins(ctx) && !closeDrainedScopes(ctx) && !fireConditions(ctx)) break;
  }
}

/** The run went past the step limit: every track still to move stops with an incident a person can retry. */
function stopRun(ctx: StepContext, moves: number): void {
  const message = `the run made ${moves} element moves without waiting (the engine's stepLimit is ${ctx.stepLimit}): the model loops without ever waiting; mend the model, or retry the incident to let it run on`;
  for (const id of new Set(ctx.agenda.splice(0))) {
    const track = ctx.state.tracks.get(id);
    if (track?.state !== 'entering' && track?.state !== 'leaving') continue;
    raiseIncident(ctx, track, 'step-limit', track.state === 'leaving' ? 'leave' : 'enter', message, null);
  }
}
