/**
 * Message subscription rows: one per message an instance waited for, `CREATED` when the instance first shows it,
 * then `CORRELATED` when it is gone after it took a message, `DELETED` when it went otherwise (its element left, the
 * instance ended). One opened and taken between two batches is made `CORRELATED` from the correlation alone.
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
  /** The messages the instance's subscriptions took in the batch. */
  correlations: readonly Correlation[];
  /** The activation each element entered last in the batch: where a subscription gone before it was seen waited. */
  entered: ReadonlyMap<string, string>;
}

/** The subscription rows of an instance, given the rows of its subscriptions the projection holds open (`kept`). */
export function subscriptionRows(source: SubscriptionSource, kept: readonly SearchRow[]): SearchRow[] {
  const { view, serial, at, correlations, entered } = source;
  // What took a message: the subscription, as correlations now tell it; its element, as older ones did.
  const takers = new Map<string, Correlation>();
  for (const event of correlations) {
    const key = event.subscriptionId === undefined ? undefined : localKey(serial, event.subscriptionId);
    if (key !== undefined) takers.set(key, event);
  }
  const byElement = new Set(correlations.filter((one) => one.subscriptionId === undefined).map((one) => one.elementId));
  const keptKeys = new Set(kept.map((row) => row.key));
  const rows: SearchRow[] = [];
  const live = new Set<string>();
  for (const subscription of view.subscriptions) {
    const key = subscription.kind === 'message' ? localKey(serial, subscription.id) : undefined;
    if (key === undefined) continue;
    live.add(key);
    if (keptKeys.has(key)) continue;
    const activation = view.elementInstances.find((candidate) => candidate.trackId === subscription.trackId);
    rows.push(subscriptionRow(source, key, { ...subscription, activationId: activation?.id }, 'CREATED', at));
  }
  for (const row of kept) {
    if (live.has(row.key)) continue;
    const taken = takers.has(row.key) || byElement.has(String(row.fields.elementId));
    const date = new Date(at).toISOString();
    rows.push(changed(row, { messageSubscriptionState: taken ? 'CORRELATED' : 'DELETED', lastUpdatedDate: date }));
  }
  // Opened and taken between two batches: made from the correlation, where its element's activation was entered.
  for (const [key, event] of takers) {
    if (live.has(key) || keptKeys.has(key)) continue;
    const waited = { ...event, activationId: entered.get(event.elementId) };
    rows.push(subscriptionRow(source, key, waited, 'CORRELATED', event.at));
  }
  return rows;
}

/** A subscription's row as Camunda describes it. */
function subscriptionRow(
  source: Pick<SubscriptionSource, 'view' | 'serial' | 'definition'>,
  key: string,
  subscription: { elementId: string; name: string; correlationKey: string | null; activationId: string | undefined },
  state: 'CREATED' | 'CORRELATED',
  at: number,
): SearchRow {
  const { view, serial, definition } = source;
  const { elementId, name, correlationKey, activationId } = subscription;
  return rowOf(KINDS.messageSubscription, key, {
    messageSubscriptionKey: key,
    processDefinitionId: view.processId,
    ...(definition === undefined ? {} : { processDefinitionKey: definition.processDefinitionKey }),
    processInstanceKey: instanceKey(serial),
    elementId,
    ...(activationId === undefined ? {} : { elementInstanceKey: elementInstanceKey(serial, activationId) }),
    messageSubscriptionState: state,
    lastUpdatedDate: new Date(at).toISOString(),
    messageName: name,
    ...(correlationKey === null ? {} : { correlationKey }),
    tenantId: DEFAULT_TENANT,
  });
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
    const byKey = event.subscriptionId === undefined ? undefined : localKey(serial, event.subscriptionId);
    const taker = subscriptions
      .map(bodyOf)
      .find((body) =>
        byKey === undefined
          ? body.elementId === event.elementId && body.messageName === event.name
          : body.messageSubscriptionKey === byKey,
      );
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
        typeof taker?.messageSubscriptionKey === 'string'
          ? taker.messageSubscriptionKey
          : (byKey ?? live(event) ?? key),
      tenantId: DEFAULT_TENANT,
    });
  });
}
