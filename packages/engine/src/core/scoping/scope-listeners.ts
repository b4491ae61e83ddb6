import type { ScopeRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { listenersOf } from '../../model/process-types.js';
import { runListeners } from '../jobs/listeners.js';
import type { StepContext } from '../step/context.js';
import { move, standIn } from '../step/tracks.js';
import { moveScope } from './scope-moves.js';

/**
 * The execution listeners of a process and of an event sub-process. Neither has a track of its own (tracks
 * stand at the elements inside them), so while their listeners run a track stands for the scope: at the
 * container's id, in the scope itself (`listeners.ts#isScopeTrack`). Start listeners run before the scope's
 * start event and event sub-processes; end listeners once its tracks drained, before it completes (the scope
 * `ending` meanwhile). Cancelling the scope cancels the track, and with it the listeners still to run.
 */

/**
 * The scope at `path` (the process, or an event sub-process) begins: when it has start listeners, a track
 * runs them first, remembering the start event and the trigger's payload (`variables`) the scope then begins
 * with. True when it has some (the caller begins the scope otherwise).
 */
export function startScopeListeners(
  ctx: StepContext,
  path: string,
  startNode: string,
  variables: Variables | null,
): boolean {
  const scope = ctx.state.scope(path);
  if (listenersOf(ctx.process, scope.nodeId, 'start').length === 0) return false;
  const track = standIn(ctx, scope.path, scope.nodeId);
  track.listening = { eventType: 'start', done: 0, startNode };
  track.result = variables;
  ctx.agenda.push(track.id);
  return true;
}

/**
 * A scope's tracks drained: a process or event sub-process with end listeners runs them, on a track standing
 * for it, before it completes. True when it does.
 */
export function endScopeListeners(ctx: StepContext, scope: ScopeRecord): boolean {
  if (scope.hostTrack !== null || listenersOf(ctx.process, scope.nodeId, 'end').length === 0) return false;
  moveScope(ctx, scope, 'LISTEN');
  // Leaving, as an element's track leaves: its end listeners run there.
  move(ctx, standIn(ctx, scope.path, scope.nodeId), 'COMPLETE');
  return true;
}

/** The scope's track leaving: its end listeners, then the scope completes. */
export function leaveScopeTrack(ctx: StepContext, track: TrackRecord): void {
  if (runListeners(ctx, track, 'end', 'leave')) return;
  move(ctx, track, 'END');
  moveScope(ctx, ctx.state.scope(track.scopePath), 'COMPLETE');
}
