import type { TrackRecord, Variables } from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import type { StartEventNode, SubProcessNode } from '../../model/node-types.js';
import { runListeners } from '../jobs/listeners.js';
import { cancelInside } from '../scoping/cancel.js';
import { startScopeListeners } from '../scoping/scope-listeners.js';
import { disarmEventSubProcesses } from '../scoping/scope-moves.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { newScope, scopePath } from '../step/records.js';
import { move, spawn } from '../step/tracks.js';
import { holdStandIn, terminationsSince } from '../user-tasks/terminations.js';
import { arm } from './waits.js';

/**
 * Event sub-processes: while a scope is open, the timer, message and signal starts of its event
 * sub-processes wait; an error or escalation thrown inside can start one; a started one runs in a scope of
 * its own, after cancelling the rest of its parent's when it interrupts.
 */

/**
 * Arm the timer, message and signal starts of the event sub-processes of the scope at `path`. With a
 * `blame` track an expression that fails raises an incident on it (false); without, it refuses the event.
 */
export function armEventSubProcesses(ctx: StepContext, path: string, blame: TrackRecord | null): boolean {
  const scope = ctx.state.scope(path);
  const view = ctx.state.visible(path);
  for (const start of eventSubProcessStarts(ctx, scope.nodeId)) {
    const event = start.event;
    const waits = event?.kind === 'timer' || event?.kind === 'message' || event?.kind === 'signal';
    if (!waits && event?.kind !== 'conditional') continue;
    if (!arm(ctx, { kind: 'eventSubProcess', scopePath: path, nodeId: start.id }, start, event!, view, blame)) {
      disarmEventSubProcesses(ctx, path);
      return false;
    }
  }
  return true;
}

function eventSubProcessStarts(ctx: StepContext, containerId: string): StartEventNode[] {
  const ids = ctx.process.eventSubProcesses?.get(containerId) ?? [];
  return ids.map((id) => nodeOf(ctx, (nodeOf(ctx, id) as SubProcessNode).startNodes[0]!) as StartEventNode);
}

/**
 * Start an event sub-process in the scope at `parentPath`, in a scope of its own. An interrupting one first
 * cancels everything else in that scope (and its other event sub-processes' waits).
 */
export function startEventSubProcess(
  ctx: StepContext,
  parentPath: string,
  start: StartEventNode,
  variables: Variables,
): void {
  if (start.interrupting !== false) {
    const before = ctx.terminating.length;
    cancelInside(ctx, parentPath);
    disarmEventSubProcesses(ctx, parentPath);
    // User tasks running their canceling listeners: it starts once they ran, as Zeebe starts it after the
    // scope's other elements terminated.
    const on = terminationsSince(ctx, before);
    if (on.length > 0)
      return holdStandIn(ctx, parentPath, start.id, on, { kind: 'eventSubProcess', startNode: start.id, variables });
  }
  const parent = ctx.state.scope(parentPath);
  const espId = start.container;
  const pass = parent.visits[espId] ?? 0;
  parent.visits[espId] = pass + 1;
  const path = scopePath(parentPath, espId, { pass });
  ctx.state.scopes.set(path, newScope(path, espId, parentPath, null, {}));
  if (startScopeListeners(ctx, path, start.id, variables)) return;
  beginScope(ctx, path, start.id, variables);
}

/**
 * A scope's content begins (the process's, or an event sub-process's): the timer, message and signal starts
 * of its event sub-processes wait, and a track enters its start event — carrying a trigger's payload.
 */
export function beginScope(ctx: StepContext, path: string, startNode: string, variables: Variables | null): void {
  armEventSubProcesses(ctx, path, null);
  const track = spawn(ctx, path, startNode, null);
  if (variables !== null) track.result = variables;
}

/** A process's or event sub-process's own track entering: its start listeners, then the scope begins without it. */
export function enterScopeTrack(ctx: StepContext, track: TrackRecord): void {
  if (runListeners(ctx, track, 'start', 'enter')) return;
  const startNode = track.listening?.startNode;
  if (startNode === undefined)
    throw new InvalidStateError(`track ${track.id} of ${track.scopePath} names no start event`);
  const variables = track.result;
  move(ctx, track, 'END');
  beginScope(ctx, track.scopePath, startNode, variables);
}

/** The event sub-process start of a scope that catches an error or escalation `code`: exact first. */
export function eventSubProcessCatcher(
  ctx: StepContext,
  path: string,
  kind: 'error' | 'escalation',
  code: string,
): StartEventNode | undefined {
  const scope = ctx.state.scopes.get(path);
  if (!scope) return undefined;
  const starts = eventSubProcessStarts(ctx, scope.nodeId).filter((s) => s.event?.kind === kind);
  const codeOf = (s: StartEventNode) => (s.event?.kind === kind ? s.event.code : undefined);
  return starts.find((s) => codeOf(s) === code) ?? starts.find((s) => codeOf(s) === null);
}
