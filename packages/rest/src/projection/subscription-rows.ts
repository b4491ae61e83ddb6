/**
 * Message subscription rows: one per message an instance waited for, `CREATED` when the instance first shows it,
 * then `CORRELATED` when it is gone after its element took a message, `DELETED` when it went otherwise (its element
 * left, the instance ended).
 */
import type { Repository, SearchRow } from '@thresher/checkpoint';
import type { InstanceView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import { elementInstanceKey, instanceKey, localKey } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { changed, KINDS, rowOf } from './instance-rows.js';

export interface SubscriptionSource {
  view: InstanceView;
  serial: number;
  definition: ProcessDefinition | undefined;
  /** When what changed without an event of its own changed: the instance's last event in the batch. */
  at: number;
  /** The elements that took a message in the batch. */
  correlated: ReadonlySet<string>;
}

export async function subscriptionRows(repository: Repository, source: SubscriptionSource): Promise<SearchRow[]> {
  const { view, serial, definition, at, correlated } = source;
  const processInstanceKey = instanceKey(serial);
  const kept = await repository.searchRows({
    kind: KINDS.messageSubscription,
    where: [
      { op: 'eq', field: 'processInstanceKey', type: 'key', value: processInstanceKey },
      { op: 'eq', field: 'messageSubscriptionState', type: 'text', value: 'CREATED' },
    ],
    limit: 10_000,
  });
  const rows: SearchRow[] = [];
  const live = new Set<string>();
  const date = new Date(at).toISOString();
  for (const subscription of view.subscriptions) {
    const key = subscription.kind === 'message' ? localKey(serial, subscription.id) : undefined;
    if (key === undefined) continue;
    live.add(key);
    if (kept.rows.some((row) => row.key === key)) continue;
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
  for (const row of kept.rows) {
    if (live.has(row.key)) continue;
    const state = correlated.has(String(row.fields.elementId)) ? 'CORRELATED' : 'DELETED';
    rows.push(changed(row, { messageSubscriptionState: state, lastUpdatedDate: date }));
  }
  return rows;
}
