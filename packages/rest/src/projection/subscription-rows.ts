/**
 * Message subscription rows: one per message an instance waited for, `CREATED` when the instance first shows it,
 * then `CORRELATED` when it is gone after its element took a message, `DELETED` when it went otherwise (its element
 * left, the instance ended).
 */
import type { SearchRow } from '@thresher/checkpoint';
import type { EngineEvent, InstanceView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import { elementInstanceKey, instanceKey, localKey, messageKey, namedKey } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { bodyOf, changed, KINDS, rowOf } from './instance-rows.js';

export interface SubscriptionSource {
  view: InstanceView;
  serial: number;
  definition: ProcessDefinition | undefined;
  /** When what changed without an event of its own changed: the instance's last event in the batch. */
  at: number;
  /** The elements that took a message in the batch. */
  correlated: ReadonlySet<string>;
}

/** The subscription rows of an instance, given the rows of its subscriptions the projection holds open (`kept`). */
export function subscriptionRows(source: SubscriptionSource, kept: readonly SearchRow[]): SearchRow[] {
  const { view, serial, definition, at, correlated } = source;
  const processInstanceKey = instanceKey(serial);
  const rows: SearchRow[] = [];
  const live = new Set<string>();
  const date = new Date(at).toISOString();
  for (const subscription of view.subscriptions) {
    const key = subscription.kind === 'message' ? localKey(serial, subscription.id) : undefined;
    if (key === undefined) continue;
    live.add(key);
    if (kept.some((row) => row.key === key)) continue;
    const activation = view.elementInstances.find((candidate) => candidate.trackId === subscription.trackId);
    rows.push(
      rowOf(KINDS.messageSubscription, key, {
        messageSubscriptionKey: key,
        processDefinitionId: view.processId,
        ...(definition === undefined ? {} : { processDefinitionKey: definition.processDefinitionKey }),
        processInstanceKey,
        elementId: subscription.elementId,
        ...(activation === undefined ? {} : { elementInstanceKey: elementInstanceKey(serial, activation.id) }),
        messageSubscriptionState: 'CREATED',
        lastUpdatedDate: date,
        messageName: subscription.name,
        ...(subscription.correlationKey === null ? {} : { correlationKey: subscription.correlationKey }),
        tenantId: DEFAULT_TENANT,
      }),
    );
  }
  for (const row of kept) {
    if (live.has(row.key)) continue;
    const state = correlated.has(String(row.fields.elementId)) ? 'CORRELATED' : 'DELETED';
    rows.push(changed(row, { messageSubscriptionState: state, lastUpdatedDate: date }));
  }
  return rows;
}

/** A message an instance's element took, as the log tells it. */
export type Correlation = Extract<EngineEvent, { type: 'message.correlated' }>;

/**
 * Correlated message subscription rows: one per message an element took, with the subscription that took it (the
 * row of its element and name among `subscriptions`, as this batch made them) and the message's key — as its
 * publication answered it when it had an id (the Camunda API gives every publication one), else one derived from
 * the correlation.
 */
export function correlationRows(
  correlations: readonly Correlation[],
  subscriptions: readonly SearchRow[],
  source: Pick<SubscriptionSource, 'view' | 'serial' | 'definition'>,
): SearchRow[] {
  const { view, serial, definition } = source;
  // A subscription that stays after taking a message (a non-interrupting event) is still the instance's.
  const live = (event: Correlation) => {
    const found = view.subscriptions.find((one) => one.elementId === event.elementId && one.name === event.name);
    return found === undefined ? undefined : localKey(serial, found.id);
  };
  return correlations.map((event) => {
    const key = namedKey(serial, 'correlation', event.id);
    const taker = subscriptions
      .map(bodyOf)
      .find((body) => body.elementId === event.elementId && body.messageName === event.name);
    return rowOf(KINDS.correlatedSubscription, key, {
      correlationKey: event.correlationKey ?? '',
      correlationTime: new Date(event.at).toISOString(),
      elementId: event.elementId,
      ...(typeof taker?.elementInstanceKey === 'string' ? { elementInstanceKey: taker.elementInstanceKey } : {}),
      messageKey: messageKey(event.name, event.correlationKey, event.messageId ?? event.id),
      messageName: event.name,
      partitionId: 1,
      processDefinitionId: view.processId,
      ...(definition === undefined ? {} : { processDefinitionKey: definition.processDefinitionKey }),
      processInstanceKey: instanceKey(serial),
      subscriptionKey:
        typeof taker?.messageSubscriptionKey === 'string' ? taker.messageSubscriptionKey : (live(event) ?? key),
      tenantId: DEFAULT_TENANT,
    });
  });
}
