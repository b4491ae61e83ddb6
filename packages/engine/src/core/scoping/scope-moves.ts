import type { ScopeRecord } from '@thresher/checkpoint';
import { advanceScope, moveBy, type Performers, type ScopeAction, type ScopeEvent } from '../../machines/index.js';
import type { SubProcessNode } from '../../model/node-types.js';
import { announce, nodeOf, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import { move } from '../step/tracks.js';
import { holdsTerminations } from '../user-tasks/terminations.js';
import { notifyParentOfEnd } from './call-outcomes.js';
import { handOnLedger } from './ledgers.js';

/**
 * What a scope's moves do: `disarm` its event sub-processes, `resumeHost` once it completed, `release` a
 * terminated scope's record (the root's stays, as the instance's data).
 */
const SCOPE_ACTIONS: Performers<ScopeAction, StepContext, ScopeRecord> = {
  disarm: (ctx, scope) => disarmEventSubProcesses(ctx, scope.path),
  resumeHost: (ctx, scope) => resumeHost(ctx, scope),
  // A scope where a user task runs its canceling listeners stays, with its variables, until they ran (`held.ts`).
  release: (ctx, scope) => {
    if (scope.parentPath !== null && !holdsTerminations(ctx, scope)) ctx.state.scopes.delete(scope.path);
  },
};

/**
 * Terminate a scope, once: one already terminated is only kept while a user task in it runs its canceling
 * listeners (`terminations.ts`), and a second interrupt finds it so.
 */
export function terminateScope(ctx: StepContext, scope: ScopeRecord): void {
  if (scope.state !== 'terminated') moveScope(ctx, scope, 'TERMINATE');
}

/** Move a scope's machine by one event and perform the actions the move returns. */
export function moveScope(ctx: StepContext, scope: ScopeRecord, event: ScopeEvent): void {
  moveBy(advanceScope, scope, event, SCOPE_ACTIONS, ctx, scope);
}

/** Drop the timers and subscriptions of the event sub-processes of the scope at `path`. */
export function disarmEventSubProcesses(ctx: StepContext, path: string): void {
  ctx.state.dropWaits((owner) => owner.kind === 'eventSubProcess' && owner.scopePath === path);
}

/** A scope completed: the root completes the instance; another goes, resuming the track parked on it. */
function resumeHost(ctx: StepContext, scope: ScopeRecord): void {
  if (scope.parentPath === null) return finishInstance(ctx, 'completed');
  handOnLedger(ctx, scope);
  ctx.state.scopes.delete(scope.path);
  // An event sub-process has no host: it completes in its parent's history, and its end lets the parent drain.
  if (scope.hostTrack === null) {
    ctx.state.done.completed.push({ node: scope.nodeId, scope: scope.parentPath, track: scope.path });
    return;
  }
  const host = ctx.state.track(scope.hostTrack);
  host.locals = { ...scope.data };
  // An ad-hoc sub-process hands its output collection on, as Zeebe propagates it to the parent scope.
  const collection = (nodeOf(ctx, scope.nodeId) as SubProcessNode).adHoc?.outputCollection;
  if (collection) host.result = { [collection]: scope.data[collection] ?? [] };
  host.wait = null;
  move(ctx, host, 'RESUME');
}

/** The instance ended: completed, or terminated (by a terminate end event `nodeId`, or cancelled). */
export function finishInstance(ctx: StepContext, status: 'completed' | 'terminated', nodeId?: string): void {
  const instance = ctx.state.instance;
  instance.status = status;
  instance.endedAt = ctx.now;
  if (status === 'completed') {
    announce(ctx, { id: eventId(ctx.id, 'instance.completed'), type: 'instance.completed' });
  } else {
    announce(ctx, { id: eventId(ctx.id, 'instance.terminated'), type: 'instance.terminated', elementId: nodeId ?? '' });
  }
  notifyParentOfEnd(ctx, status, nodeId);
}
