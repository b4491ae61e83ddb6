/**
 * The rows a batch reconciles, read for all its instances at once: the activations, jobs and message subscriptions
 * the projection holds open for them. One query per kind per batch, not per instance: a store's read may first
 * commit the engine's pending writes, so fewer reads keep the engine's group commits whole.
 */
import {
  MAX_ROW_LIMIT,
  type Repository,
  type RowCondition,
  type RowSearch,
  type SearchRow,
} from '@thresher/checkpoint';
import { KINDS } from './instance-rows.js';

/** Open rows of a batch's instances, by kind, then by process instance key. */
export interface KeptRows {
  elementInstances: ReadonlyMap<string, readonly SearchRow[]>;
  jobs: ReadonlyMap<string, readonly SearchRow[]>;
  subscriptions: ReadonlyMap<string, readonly SearchRow[]>;
}

export async function keptRows(repository: Repository, instanceKeys: readonly string[]): Promise<KeptRows> {
  const of = (kind: string, open: RowCondition) => openRows(repository, kind, instanceKeys, open);
  return {
    elementInstances: await of(KINDS.elementInstance, { op: 'eq', field: 'state', type: 'text', value: 'ACTIVE' }),
    jobs: await of(KINDS.job, { op: 'in', field: 'state', type: 'text', values: ['CREATED', 'FAILED'] }),
    subscriptions: await of(KINDS.messageSubscription, {
      op: 'eq',
      field: 'messageSubscriptionState',
      type: 'text',
      value: 'CREATED',
    }),
  };
}

/** Every row of `kind` of these instances that is `open`, page by page. */
async function openRows(
  repository: Repository,
  kind: string,
  instanceKeys: readonly string[],
  open: RowCondition,
): Promise<Map<string, SearchRow[]>> {
  const byInstance = new Map<string, SearchRow[]>();
  if (instanceKeys.length === 0) return byInstance;
  const where: RowCondition[] = [
    { op: 'in', field: 'processInstanceKey', type: 'key', values: [...instanceKeys] },
    open,
  ];
  for await (const row of allRows(repository, { kind, where })) {
    const instance = String(row.fields.processInstanceKey);
    const rows = byInstance.get(instance);
    if (rows === undefined) byInstance.set(instance, [row]);
    else rows.push(row);
  }
  return byInstance;
}

/** Every row a search matches, read a page (the most one search reads) at a time. */
export async function* allRows(
  repository: Repository,
  search: Omit<RowSearch, 'from' | 'limit'>,
): AsyncGenerator<SearchRow> {
  for (let from = 0; ; from += MAX_ROW_LIMIT) {
    const page = await repository.searchRows({ ...search, from, limit: MAX_ROW_LIMIT });
    yield* page.rows;
    if (page.rows.length < MAX_ROW_LIMIT) return;
  }
}
