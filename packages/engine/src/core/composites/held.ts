import type { TrackRecord } from '@thresher/checkpoint';
import type { StartEventNode } from '../../model/node-types.js';
import { startEventSubProcess } from '../events/event-subprocesses.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { isBodyScope } from '../step/records.js';
import { move } from '../step/tracks.js';
import { holdsTerminations } from '../user-tasks/terminations.js';
import { bodiesTerminated } from './loops.js';
import { terminate } from './throws.js';

/**
 * Terminations that ended in this step (user tasks whose canceling listeners ran, `terminations.ts`): the
 * scopes kept for them go, and what they held goes on — a boundary event enters, a scope ends, an event
 * sub-process starts, a multi-instance whose condition fired completes. True when there were some.
 */
export function endTerminations(ctx: StepContext): boolean {
  if (ctx.terminated.length === 0) return false;
  const done = ctx.terminated.splice(0);
  for (const { scopePath } of done) dropKeptScopes(ctx, scopePath);
  const ended = new Set(done.map((each) => each.trackId));
  for (const track of [...ctx.state.tracks.values()]) {
    const wait = track.wait;
    if (wait?.kind !== 'held' || !wait.on.some((id) => ended.has(id))) continue;
    const on = wait.on.filter((id) => !ended.has(id));
    if (on.length > 0) track.wait = { ...wait, on };
    else release(ctx, track);
  }
  return true;
}

/** A terminated scope kept for a termination goes once nothing is left in it, and so on outwards. */
function dropKeptScopes(ctx: StepContext, path: string): void {
  const { state } = ctx;
  for (let scope = state.scopes.get(path); scope?.state === 'terminated'; ) {
    if (holdsTerminations(ctx, scope)) return;
    state.scopes.delete(scope.path);
    if (isBodyScope(scope)) bodiesTerminated(ctx, scope.hostTrack);
    scope = scope.parentPath === null ? undefined : state.scopes.get(scope.parentPath);
  }
}

/** What a held interrupter does once the terminations it waited for are done. */
function release(ctx: StepContext, track: TrackRecord): void {
  if (track.wait?.kind !== 'held') return;
  const { then } = track.wait;
  track.wait = null;
  if (then.kind === 'enter') return move(ctx, track, 'RELEASE');
  // A stand-in: it goes, and the interrupter's work is done again, now at once.
  move(ctx, track, 'END');
  if (then.kind === 'terminate') return terminate(ctx, track.scopePath, then.nodeId);
  startEventSubProcess(ctx, track.scopePath, nodeOf(ctx, then.startNode) as StartEventNode, then.variables);
}
