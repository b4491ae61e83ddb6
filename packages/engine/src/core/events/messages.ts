import { InvalidStateError } from '../../common/errors.js';
import { announce, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import type { InstanceEventOf } from '../step/instance-event.js';
import { wake } from './wake.js';

/** Message correlation and signal reception: which subscription of the instance an arrival wakes. */

/** A message for this instance: the first subscription with its name and key takes it, once per message id. */
export function correlateMessage(ctx: StepContext, event: InstanceEventOf<'message.correlated'>): void {
  if (ctx.state.alreadyReceived(event.messageId)) return;
  const subscription = [...ctx.state.subscriptions.values()].find(
    (s) => s.kind === 'message' && s.name === event.name && s.correlationKey === event.correlationKey,
  );
  if (!subscription) {
    throw new InvalidStateError(
      `instance ${ctx.id} has no subscription for message "${event.name}" with key ${JSON.stringify(event.correlationKey)}`,
    );
  }
  announce(ctx, {
    id: eventId(ctx.id, 'message.correlated', subscription.id, event.messageId ?? ctx.state.instance.nextId),
    type: 'message.correlated',
    elementId: subscription.nodeId,
    name: event.name,
    correlationKey: event.correlationKey,
    ...(event.messageId ? { messageId: event.messageId } : {}),
    subscriptionId: subscription.id,
  });
  wake(ctx, subscription.owner, event.variables);
}

/** A signal: every subscription of this instance with its name takes it, once per signal id. */
export function receiveSignal(ctx: StepContext, event: InstanceEventOf<'signal.received'>): void {
  if (ctx.state.alreadyReceived(event.signalId)) return;
  const matching = [...ctx.state.subscriptions.values()].filter((s) => s.kind === 'signal' && s.name === event.name);
  for (const subscription of matching) {
    if (!ctx.state.subscriptions.has(subscription.id)) continue; // an earlier delivery cancelled it
    announce(ctx, {
      id: eventId(ctx.id, 'signal.received', subscription.id, event.signalId ?? ctx.state.instance.nextId),
      type: 'signal.received',
      elementId: subscription.nodeId,
      name: event.name,
    });
    wake(ctx, subscription.owner, event.variables);
  }
}
