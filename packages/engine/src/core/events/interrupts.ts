import type { TrackRecord, Variables } from '@thresher/checkpoint';
import type { BoundaryEventNode } from '../../model/node-types.js';
import { cancel } from '../scoping/cancel.js';
import type { StepContext } from '../step/context.js';
import { spawn } from '../step/tracks.js';
import { hold, terminationsSince } from '../user-tasks/terminations.js';

/**
 * A boundary event fires on its activity's track `host` with `variables`: an interrupting one cancels the
 * activity first. Its track then enters the event — or, while a user task the cancel terminated runs its
 * canceling listeners, waits held until they ran, as Zeebe activates the boundary once its activity terminated.
 */
export function interruptFrom(
  ctx: StepContext,
  host: TrackRecord,
  boundary: BoundaryEventNode,
  variables: Variables,
): void {
  const before = ctx.terminating.length;
  if (boundary.interrupting) cancel(ctx, host);
  const track = spawn(ctx, host.scopePath, boundary.id, null);
  track.result = variables;
  const on = terminationsSince(ctx, before);
  if (on.length > 0) hold(ctx, track, on, { kind: 'enter' });
}
