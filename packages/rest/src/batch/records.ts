/**
 * A batch operation's durable record: one row for the batch and one per item, kept in the store's search rows
 * apart from the projection's, each batch under a writer of its own (`batch.<key>`). Every change is written only
 * over the version it read (the store's conditional `putRows`), so of several engines changing one batch at once
 * one wins and the others read again: an item is claimed by one runner at a time, and finished once.
 */
import type { Repository, RowCondition, SearchRow } from '@thresher/checkpoint';
import { MAX_ROW_LIMIT } from '@thresher/checkpoint';
import { allRows } from '../projection/kept-rows.js';
import { BODY } from '../projection/row-search.js';

export const BATCH_KINDS = { batch: 'batchOperation', item: 'batchOperationItem' } as const;

export type BatchType =
  | 'CANCEL_PROCESS_INSTANCE'
  | 'RESOLVE_INCIDENT'
  | 'MODIFY_PROCESS_INSTANCE'
  | 'MIGRATE_PROCESS_INSTANCE';
export type BatchState =
  | 'CREATED'
  | 'ACTIVE'
  | 'SUSPENDED'
  | 'COMPLETED'
  | 'PARTIALLY_COMPLETED'
  | 'CANCELED'
  | 'FAILED';
export type ItemState = 'ACTIVE' | 'COMPLETED' | 'SKIPPED' | 'CANCELED' | 'FAILED';

/** What a batch does to each item, as its request said (a move's instructions, a migration's plan). */
export type BatchSpec =
  | { type: 'CANCEL_PROCESS_INSTANCE' }
  /** `only`: of each instance, just the incidents at that element with that message (an incident group's). */
  | { type: 'RESOLVE_INCIDENT'; only?: { elementId: string; errorMessage: string } }
  | { type: 'MODIFY_PROCESS_INSTANCE'; moves: { sourceElementId: string; targetElementId: string }[] }
  | {
      type: 'MIGRATE_PROCESS_INSTANCE';
      processId: string;
      digest: string;
      mapping: { sourceElementId: string; targetElementId: string }[];
    };

export interface BatchRecord {
  batchOperationKey: string;
  batchOperationType: BatchType;
  state: BatchState;
  startDate: string;
  endDate: string | null;
  operationsTotalCount: number;
  operationsFailedCount: number;
  operationsCompletedCount: number;
  spec: BatchSpec;
}

export interface ItemRecord {
  batchOperationKey: string;
  operationType: BatchType;
  itemKey: string;
  processInstanceKey: string;
  state: ItemState;
  processedDate: string | null;
  errorMessage: string | null;
  /** The runner working on it, until when (epoch ms); another takes it over after. */
  claimedBy: string | null;
  claimedUntil: number | null;
  /** What a claim saw to do (a resolution's incidents), so a runner taking it over does that and no more. */
  planned: string[] | null;
}

/** One batch as read: its record, its items, and the version they were read at. */
export interface BatchRead {
  batch: BatchRecord;
  items: ItemRecord[];
  version: string | null;
}

const writer = (key: string) => `batch.${key}`;

/** The fields Camunda's answers carry, absent when null (its `BatchOperationResponse`, `BatchOperationItemResponse`). */
function answered(fields: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)));
}

function batchRow(batch: BatchRecord): SearchRow {
  const { spec, ...fields } = batch;
  const body = answered({ ...fields, errors: [] });
  return {
    kind: BATCH_KINDS.batch,
    key: batch.batchOperationKey,
    fields: { ...fields, spec: JSON.stringify(spec), [BODY]: body },
  };
}

function itemRow(item: ItemRecord): SearchRow {
  const { planned, claimedBy, claimedUntil, ...shown } = item;
  return {
    kind: BATCH_KINDS.item,
    key: `${item.batchOperationKey}-${item.itemKey}`,
    fields: {
      ...shown,
      claimedBy,
      claimedUntil,
      planned: planned === null ? null : JSON.stringify(planned),
      [BODY]: answered(shown),
    },
  };
}

export function batchOf(row: SearchRow): BatchRecord {
  const f = row.fields;
  return {
    batchOperationKey: String(f.batchOperationKey),
    batchOperationType: f.batchOperationType as BatchType,
    state: f.state as BatchState,
    startDate: String(f.startDate),
    endDate: typeof f.endDate === 'string' ? f.endDate : null,
    operationsTotalCount: Number(f.operationsTotalCount),
    operationsFailedCount: Number(f.operationsFailedCount),
    operationsCompletedCount: Number(f.operationsCompletedCount),
    spec: JSON.parse(String(f.spec)) as BatchSpec,
  };
}

export function itemOf(row: SearchRow): ItemRecord {
  const f = row.fields;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    batchOperationKey: String(f.batchOperationKey),
    operationType: f.operationType as BatchType,
    itemKey: String(f.itemKey),
    processInstanceKey: String(f.processInstanceKey),
    state: f.state as ItemState,
    processedDate: text(f.processedDate),
    errorMessage: text(f.errorMessage),
    claimedBy: text(f.claimedBy),
    claimedUntil: typeof f.claimedUntil === 'number' ? f.claimedUntil : null,
    planned: typeof f.planned === 'string' ? (JSON.parse(f.planned) as string[]) : null,
  };
}

/** A new batch with its items, written once: a key written before is refused by the version check. */
export async function createBatch(repository: Repository, batch: BatchRecord, items: ItemRecord[]): Promise<void> {
  const put = [batchRow(batch), ...items.map(itemRow)];
  const written = await repository.putRows({
    projection: writer(batch.batchOperationKey),
    after: null,
    position: '1',
    put,
  });
  if (!written) throw new Error(`batch operation ${batch.batchOperationKey} exists already`);
}

/** A batch with its items as stored now, or undefined when no batch has the key. */
export async function readBatch(repository: Repository, key: string): Promise<BatchRead | undefined> {
  return readBatchWith(repository, key, [{}]);
}

/** A batch's record alone (its items not read), or undefined when no batch has the key. */
export async function readBatchRecord(repository: Repository, key: string): Promise<BatchRecord | undefined> {
  return (await readBatchWith(repository, key, []))?.batch;
}

/**
 * Which of a batch's items a change reads: those with these keys (`itemKeys`) passing every test of `where`, the
 * first `limit` of them in key order; no field: every item. A runner's claim and finish read only what they may
 * change, so a chunk costs the same in a batch of ten items and in one of a million.
 */
export interface ItemSelection {
  itemKeys?: readonly string[];
  where?: RowCondition[];
  limit?: number;
}

/** The items still to do (claimed or not). */
export const ACTIVE_ITEMS: RowCondition = { op: 'eq', field: 'state', type: 'text', value: 'ACTIVE' };

/**
 * The batch with the items any of `selections` picks, read at one version: each item once, in the order the
 * selections read them (one selection: the store's key order).
 */
async function readBatchWith(
  repository: Repository,
  key: string,
  selections: readonly ItemSelection[],
): Promise<BatchRead | undefined> {
  const version = await repository.projectionPosition(writer(key));
  const found = await repository.searchRows({ kind: BATCH_KINDS.batch, keys: [key], limit: 1 });
  const row = found.rows[0];
  if (row === undefined) return undefined;
  const items = new Map<string, ItemRecord>();
  for (const selection of selections) {
    for (const item of await selectedItems(repository, key, selection)) items.set(item.itemKey, item);
  }
  return { batch: batchOf(row), items: [...items.values()], version };
}

async function selectedItems(repository: Repository, key: string, selection: ItemSelection): Promise<ItemRecord[]> {
  const { itemKeys, where = [], limit } = selection;
  if (itemKeys?.length === 0 || limit === 0) return [];
  const search = {
    kind: BATCH_KINDS.item,
    ...(itemKeys === undefined ? {} : { keys: itemKeys.map((itemKey) => `${key}-${itemKey}`) }),
    where: [{ op: 'eq' as const, field: 'batchOperationKey', type: 'key' as const, value: key }, ...where],
  };
  const items: ItemRecord[] = [];
  if (limit !== undefined && limit <= MAX_ROW_LIMIT) {
    for (const row of (await repository.searchRows({ ...search, limit })).rows) items.push(itemOf(row));
    return items;
  }
  for await (const row of allRows(repository, search)) {
    items.push(itemOf(row));
    if (items.length === limit) break;
  }
  return items;
}

interface Changes<T> {
  batch?: BatchRecord;
  items?: ItemRecord[];
  result: T;
}

/**
 * Change a batch as `change` says, over the version read; read again and ask again when another writer went first.
 * `change` sees the items `selections` pick (every item by default) and returns the rows to write (none: nothing
 * to change) and a result; it may be asked several times.
 */
export async function changeBatch<T>(
  repository: Repository,
  key: string,
  change: (read: BatchRead) => Changes<T> | Promise<Changes<T>>,
  selections: readonly ItemSelection[] = [{}],
): Promise<T> {
  for (;;) {
    const read = await readBatchWith(repository, key, selections);
    if (read === undefined) throw new Error(`no batch operation ${key}`);
    const { batch, items = [], result } = await change(read);
    if (batch === undefined && items.length === 0) return result;
    const put = [...(batch === undefined ? [] : [batchRow(batch)]), ...items.map(itemRow)];
    const position = String(Number(read.version ?? '0') + 1);
    if (await repository.putRows({ projection: writer(key), after: read.version, position, put })) return result;
  }
}

/** The batches in a state that has work left to do, oldest first. */
export async function openBatches(repository: Repository): Promise<BatchRecord[]> {
  const where = [{ op: 'in' as const, field: 'state', type: 'text' as const, values: ['CREATED', 'ACTIVE'] }];
  const sort = [{ field: 'startDate', type: 'text' as const }];
  const rows: BatchRecord[] = [];
  for await (const row of allRows(repository, { kind: BATCH_KINDS.batch, where, sort })) rows.push(batchOf(row));
  return rows;
}
