import type { ScopeRecord, TrackRecord } from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import type { SubProcessNode } from '../../model/node-types.js';
import { armEventSubProcesses } from '../events/event-subprocesses.js';
import { mapOrIncident } from '../jobs/incidents.js';
import { endScopeListeners } from '../scoping/scope-listeners.js';
import { moveScope } from '../scoping/scope-moves.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { newScope, scopePath } from '../step/records.js';
import { move, spawn } from '../step/tracks.js';
import { type AdHocNode, activationCompleted, beginAdHoc, elementsToActivate } from './ad-hoc.js';
import { handlerCompleted, isSweepScope } from './compensation.js';
import { bodyCompleted, isBodyScope } from './loops.js';

/**
 * Embedded sub-processes: a host track opens a scope with the data its input mappings make, waits on it,
 * and resumes once every track inside has ended — one scope per activation, so a loop's second pass never
 * shares a path (or a step identity) with its first. An ad-hoc sub-process activates its elements instead of
 * starting at a start event (`ad-hoc.ts`).
 */

export function openScope(ctx: StepContext, host: TrackRecord, node: SubProcessNode): void {
  const parent = host.scopePath;
  // With start listeners, the inputs were made before them, with their variables, as the host's locals.
  const mapped = host.listening ? {} : mapOrIncident(ctx, host, node.io.inputs, ctx.state.visible(parent), 'enter');
  if (!mapped) return;
  // A modification may have given the activation variables of its own; its input mappings win over them.
  const data = host.locals === null ? mapped : { ...host.locals, ...mapped };
  // An ad-hoc sub-process's elements are chosen before its scope opens: a wrong choice opens nothing.
  const elements = node.adHoc
    ? elementsToActivate(ctx, host, node as AdHocNode, { ...ctx.state.visible(parent), ...data })
    : [];
  if (!elements) return;
  const path = scopePath(parent, node.id, { pass: host.attempt });
  const scope = newScope(path, node.id, parent, host.id, data);
  ctx.state.scopes.set(path, scope);
  if (!armEventSubProcesses(ctx, path, host)) {
    ctx.state.scopes.delete(path);
    return;
  }
  host.locals = null;
  host.wait = { kind: 'scope', path };
  move(ctx, host, 'WAIT');
  if (node.adHoc) return beginAdHoc(ctx, scope, node as AdHocNode, elements);
  const start = node.startNodes[0];
  if (!start) throw new InvalidStateError(`sub-process ${node.id} has no none start event`);
  spawn(ctx, path, start, null);
}

/**
 * Close every scope whose tracks have all ended (innermost first): the root completes the instance, a
 * sub-process resumes its host. True when one closed.
 */
export function closeDrainedScopes(ctx: StepContext): boolean {
  let closed = false;
  for (const scope of [...ctx.state.scopes.values()].reverse()) {
    if (!drained(ctx, scope)) continue;
    closed = true;
    // Activations that end in one step complete in the order they began: their outputs are collected so.
    if (scope.activation !== undefined) {
      for (const sibling of [...ctx.state.scopes.values()]) {
        if (sibling.activation !== undefined && sibling.parentPath === scope.parentPath && drained(ctx, sibling)) {
          activationCompleted(ctx, sibling);
        }
      }
    } else if (isSweepScope(ctx, scope)) handlerCompleted(ctx, scope as ScopeRecord & { hostTrack: string });
    else if (isBodyScope(scope)) bodyCompleted(ctx, scope, nodeOf(ctx, scope.nodeId));
    else if (!endScopeListeners(ctx, scope)) moveScope(ctx, scope, 'COMPLETE');
  }
  return closed;
}

/**
 * Whether the scope is open with nothing left in it (still in the state: an earlier close may have taken it).
 * A running event sub-process keeps its scope open; an ad-hoc sub-process stays open until it is done.
 */
function drained(ctx: StepContext, scope: ScopeRecord): boolean {
  if (ctx.state.scopes.get(scope.path) !== scope || scope.state !== 'active') return false;
  if (ctx.state.liveTracks(scope.path).length > 0 || ctx.state.hasChildScope(scope.path)) return false;
  return !scope.adHoc || scope.adHoc.done === true;
}
