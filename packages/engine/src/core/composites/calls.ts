import { createHash } from 'node:crypto';
import type { CallOutcome, TrackRecord, Variables } from '@thresher/checkpoint';
import type { CallActivityNode } from '../../model/node-types.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident, wrongValueIncident } from '../jobs/incidents.js';
import { nextId, nodeOf, type StepContext } from '../step/context.js';
import { postCall } from '../step/outbox.js';
import { move } from '../step/tracks.js';
import { throwError, throwEscalation } from './throws.js';

/**
 * Call activities (docs/design/composites.md): the caller's track parks on the call and records, in the same
 * step, an outbox entry that starts the child once the step is durable. The child is an instance of its own
 * that names its parent; how it ends — or an error or escalation it does not catch — comes back as an outbox
 * entry of the child's, taken here once by its id.
 */

/** The caller enters: evaluate the process id, park on the call, and record the child's start. */
export function enterCall(ctx: StepContext, track: TrackRecord, node: CallActivityNode): void {
  const processId = evaluateOrIncident(ctx, track, node.calledElement, 'enter');
  if (processId === NO_VALUE) return;
  if (typeof processId !== 'string' || processId.trim() === '') {
    wrongValueIncident(
      ctx,
      track,
      'zeebe:calledElement processId',
      node.calledElement,
      processId,
      'it must be a process id',
    );
    return;
  }
  // Fresh from the document's counter, so a retried call (after an incident) starts a new child, while a
  // step replayed after a crash derives the same id and finds the child it started.
  const childId = childInstanceId(ctx.id, nextId(ctx, 'c'));
  const variables: Variables = node.propagateAllParentVariables
    ? { ...ctx.state.visible(track.scopePath), ...track.locals }
    : { ...track.locals };
  postCall(ctx, {
    childId,
    processId,
    binding: node.binding,
    variables,
    callNodeId: node.id,
    callerTrack: track.id,
  });
  track.wait = { kind: 'call', childId };
  move(ctx, track, 'WAIT');
}

/** A called instance's id: a UUID-shaped digest of its parent and the call, never containing `/`. */
export function childInstanceId(parentId: string, call: string): string {
  const hex = createHash('sha256').update(`${parentId}\u0000${call}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The child could not be started (its process is not deployed, has no none start event, …): an incident on
 * the call; retrying it calls again, with a new child.
 */
export function callFailed(ctx: StepContext, childId: string, error: string): void {
  const track = ctx.state.callerOf(childId);
  if (!track) return;
  const start = ctx.state.outbox.findIndex((entry) => entry.kind === 'call' && entry.childId === childId);
  if (start >= 0) ctx.state.outbox.splice(start, 1);
  track.wait = null;
  raiseIncident(ctx, track, 'call-failed', 'enter', `the called process could not be started: ${error}`, null);
}

/**
 * What a child sent its parent, taken once by `entryId`: completed, the call leaves with the child's variables
 * (as `propagateAllChildVariables` and the output mappings say); an error or escalation is thrown from the
 * call; an unasked-for termination is an incident on the call. A call no longer waiting (cancelled) takes nothing.
 */
export function callEnded(ctx: StepContext, childId: string, entryId: string, outcome: CallOutcome): void {
  if (ctx.state.alreadyReceived(entryId)) return;
  const track = ctx.state.callerOf(childId);
  if (!track) return;
  const node = nodeOf(ctx, track.nodeId) as CallActivityNode;
  switch (outcome.status) {
    case 'completed': {
      // Zeebe copies the child's variables to the call when it propagates them or maps some of them out.
      const copies = node.propagateAllChildVariables || node.io.outputs.length > 0;
      track.result = copies ? { ...outcome.variables } : {};
      track.wait = null;
      return move(ctx, track, 'RESUME');
    }
    case 'terminated':
      track.wait = null;
      return raiseIncident(
        ctx,
        track,
        'call-failed',
        'enter',
        `the called instance ${childId} was terminated before it completed; retrying calls the process again`,
        null,
      );
    case 'error':
      // Uncaught here too, the child keeps its own incident; the parent's call waits on.
      throwError(ctx, track, outcome.code, outcome.variables);
      return;
    case 'escalation':
      throwEscalation(ctx, track, outcome.code, outcome.variables);
      return;
  }
}
