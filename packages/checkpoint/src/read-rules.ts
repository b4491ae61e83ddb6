/**
 * The read rules every store applies to `list` and `instances` before it reads, so order, bounds and page
 * sizes mean the same on every backend; and the rule that gives an instance its call tree's root.
 */
import { checkText, isStorableText } from './input-rules.js';
import type { HistoryQuery, InstanceQuery, ListOptions, ReadOrder } from './repository-types.js';

/** A `list` call's options, checked: absent bounds and limit are null. */
export interface HistoryRange {
  order: ReadOrder;
  /** Only seqs greater than this; null for no lower bound. */
  after: number | null;
  /** Only seqs lower than this; null for no upper bound. */
  before: number | null;
  /** At most this many; null for all. */
  limit: number | null;
}

/** An `instances` query's order and page size, checked: an absent limit is null. */
export interface InstancePage {
  order: ReadOrder;
  limit: number | null;
}

/**
 * Check `order`: absent is `'asc'`.
 *
 * @throws RangeError for anything but `'asc'` and `'desc'`
 */
export function checkReadOrder(order: unknown): ReadOrder {
  if (order === undefined || order === 'asc') return 'asc';
  if (order === 'desc') return 'desc';
  throw new RangeError(`order must be 'asc' or 'desc', not ${describe(order)}`);
}

/**
 * Check a page size: absent is null (all). Safe integers only, so that no backend truncates, rounds or reads
 * a negative one its own way (SQLite reads `LIMIT -1` as no limit, PostgreSQL refuses it).
 *
 * @throws RangeError when it is not a non-negative safe integer
 */
export function checkPageSize(limit: unknown): number | null {
  if (limit === undefined) return null;
  if (!Number.isSafeInteger(limit) || (limit as number) < 0) {
    throw new RangeError(`limit must be a non-negative safe integer, not ${describe(limit)}`);
  }
  return limit as number;
}

/** Check a seq bound of `list`: absent is null (no bound). */
function checkSeqBound(name: 'after' | 'before', bound: unknown): number | null {
  if (bound === undefined) return null;
  if (!Number.isSafeInteger(bound)) throw new RangeError(`${name} must be a safe integer seq, not ${describe(bound)}`);
  return bound as number;
}

/**
 * `list`'s options as every store reads them. No bound is applied for an absent one: a default bound such as
 * `Number.MAX_SAFE_INTEGER` would leave out the seq it names.
 *
 * @throws RangeError for an unknown order, a bound that is not a safe integer, or a bad limit
 */
export function historyRange(options: ListOptions = {}): HistoryRange {
  return {
    order: checkReadOrder(options.order),
    after: checkSeqBound('after', options.after),
    before: checkSeqBound('before', options.before),
    limit: checkPageSize(options.limit),
  };
}

/** A `history` query, checked: absent fields are null. */
export interface LogRead {
  after: string | null;
  instanceId: string | null;
  limit: number | null;
}

/**
 * `history`'s query as every store reads it; the position itself is the store's to read (`integerPosition`
 * for a store whose positions are integers).
 *
 * @throws RangeError for a position that is not text, an instance id that is not text, or a bad limit
 */
export function logRead(query: HistoryQuery = {}): LogRead {
  const { after, instanceId } = query;
  if (after !== undefined && typeof after !== 'string') {
    throw new RangeError(`after must be a position history returned, not ${describe(after)}`);
  }
  if (instanceId !== undefined && typeof instanceId !== 'string') {
    throw new RangeError(`instanceId must be text, not ${describe(instanceId)}`);
  }
  return { after: after ?? null, instanceId: instanceId ?? null, limit: checkPageSize(query.limit) };
}

/**
 * A position of a store that numbers its log 1, 2, 3, ... (memory, SQLite), as the number it is.
 *
 * @throws RangeError when it is not a non-negative decimal safe integer
 */
export function integerPosition(position: string): number {
  const value = /^(0|[1-9][0-9]*)$/.test(position) ? Number(position) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new RangeError(`"${position}" is not a position of this store's history`);
  return value;
}

/**
 * Whether every text filter of an `instances` query is text a store could hold ({@link isStorableText}):
 * when one is not, nothing stored can equal it, and a store answers no instances without asking its database
 * (binding it could fail, or match a different row once the driver mangled it).
 */
export function storableFilters(query: InstanceQuery): boolean {
  return [query.parentId, query.rootId, query.status, query.definition, query.processId, query.businessKey].every(
    isStorableText,
  );
}

/** The query with the ids of `ids` no store could hold left out: they match nothing, the others still may. */
export function storableIds(query: InstanceQuery): InstanceQuery {
  return query.ids === undefined || query.ids.every(isStorableText)
    ? query
    : { ...query, ids: query.ids.filter(isStorableText) };
}

/** How many ids one `instances({ ids })` read takes at most. */
export const MAX_INSTANCE_IDS = 1000;

/**
 * `instances`' order and page size as every store reads them, its cursors and serial checked.
 *
 * @throws RangeError for an unknown order, a bad limit, or a serial that is not a safe integer
 */
export function instancePage(query: InstanceQuery = {}): InstancePage {
  // A cursor is an instance id: text no store could hold is refused alike on every backend.
  if (query.after !== undefined) checkText('after', query.after);
  if (query.before !== undefined) checkText('before', query.before);
  if (query.serial !== undefined && !Number.isSafeInteger(query.serial)) {
    throw new RangeError(`serial must be a safe integer, not ${describe(query.serial)}`);
  }
  if (query.ids !== undefined) {
    if (!Array.isArray(query.ids))
      throw new RangeError(`ids must be an array of instance ids, not ${describe(query.ids)}`);
    if (query.ids.length > MAX_INSTANCE_IDS) {
      throw new RangeError(
        `ids holds ${query.ids.length} instance ids, more than the ${MAX_INSTANCE_IDS} one read takes`,
      );
    }
    const bad = query.ids.findIndex((id) => typeof id !== 'string');
    if (bad >= 0)
      throw new RangeError(`ids[${bad}] must be an instance id (a string), not ${describe(query.ids[bad])}`);
  }
  return { order: checkReadOrder(query.order), limit: checkPageSize(query.limit) };
}

/**
 * The root of an instance's call tree when it is created (or its `parentId` changes): its own id for a root;
 * else the parent's `rootId`, or, when the parent is not stored, the parent's id (the furthest ancestor known).
 */
export function rootIdOf(instanceId: string, parentId: string | null, parentRootId: string | undefined): string {
  if (parentId === null) return instanceId;
  return parentRootId ?? parentId;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
