import type { TrackRecord, WaitOwner } from '@thresher/checkpoint';
import type { EventBasedGatewayNode, IntermediateCatchEventNode, ReceiveTaskNode } from '../../model/node-types.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { ownedBy } from '../step/state.js';
import { move } from '../step/tracks.js';
import { enterConditional, isConditionalCatch } from './conditions.js';
import { arm } from './waits.js';

/** Catch events and receive tasks wait for their event; an event-based gateway waits for the first of several. */

/** Enter a catch event or receive task: it waits for its timer, message or signal (a link catch passes). */
export function enterCatch(
  ctx: StepContext,
  track: TrackRecord,
  node: IntermediateCatchEventNode | ReceiveTaskNode,
): void {
  // The event-based gateway's winner: its event has already happened, its payload kept as the result (`enter.ts`).
  if (track.result !== null) return move(ctx, track, 'COMPLETE');
  if (node.event.kind === 'link') return move(ctx, track, 'COMPLETE');
  if (node.type === 'intermediateCatchEvent' && isConditionalCatch(node)) return enterConditional(ctx, track, node);
  const view = { ...ctx.state.visible(track.scopePath), ...track.locals };
  if (!arm(ctx, { kind: 'track', trackId: track.id }, node, node.event, view, track)) return;
  track.wait = { kind: 'event' };
  move(ctx, track, 'WAIT');
}

/** Enter an event-based gateway: arm the event of every catch event after it; the first to happen wins. */
export function enterEventGateway(ctx: StepContext, track: TrackRecord, node: EventBasedGatewayNode): void {
  const view = { ...ctx.state.visible(track.scopePath), ...track.locals };
  for (const flowId of node.outgoing) {
    const target = nodeOf(ctx, ctx.process.flows.get(flowId)!.target);
    const event = target.type === 'intermediateCatchEvent' || target.type === 'receiveTask' ? target.event : null;
    if (!event) continue;
    const owner: WaitOwner = { kind: 'gateway', trackId: track.id, target: target.id };
    if (!arm(ctx, owner, target, event, view, track)) {
      ctx.state.dropWaits(ownedBy(track.id));
      return;
    }
  }
  track.wait = { kind: 'event' };
  move(ctx, track, 'WAIT');
}
