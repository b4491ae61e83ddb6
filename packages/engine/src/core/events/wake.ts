import type { Variables, WaitOwner } from '@thresher/checkpoint';
import type { BoundaryEventNode, StartEventNode } from '../../model/node-types.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { ownedBy } from '../step/state.js';
import { move } from '../step/tracks.js';
import { startEventSubProcess } from './event-subprocesses.js';
import { interruptFrom } from './interrupts.js';

/**
 * A timer fell due, or a message or signal arrived: wake the wait's owner with the event's payload — a
 * track at a catch event or receive task, a track at an event-based gateway (its catch event wins), a
 * boundary event (interrupting its activity or not), or an event sub-process's start. Returns whether the
 * owner keeps waiting afterwards (a non-interrupting one): its timer cycle goes on, its subscription stays.
 */
export function wake(ctx: StepContext, owner: WaitOwner, variables: Variables): boolean {
  switch (owner.kind) {
    case 'track':
    case 'gateway': {
      const track = ctx.state.tracks.get(owner.trackId);
      if (track?.wait?.kind !== 'event') return false;
      ctx.state.dropWaits(ownedBy(track.id));
      if (owner.kind === 'gateway') ctx.decided.set(track.id, { target: owner.target, variables });
      else track.result = variables;
      track.wait = null;
      move(ctx, track, 'RESUME');
      return false;
    }
    case 'boundary': {
      const host = ctx.state.tracks.get(owner.trackId);
      const boundary = nodeOf(ctx, owner.nodeId) as BoundaryEventNode;
      if (!host) return false;
      interruptFrom(ctx, host, boundary, variables);
      return !boundary.interrupting;
    }
    case 'eventSubProcess': {
      const scope = ctx.state.scopes.get(owner.scopePath);
      if (scope?.state !== 'active') return false;
      const start = nodeOf(ctx, owner.nodeId) as StartEventNode;
      startEventSubProcess(ctx, owner.scopePath, start, variables);
      return start.interrupting === false;
    }
  }
}
