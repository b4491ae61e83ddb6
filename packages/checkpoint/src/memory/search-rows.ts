/** Search rows in memory: by kind and key, searched by the rules `search-rows.ts` decides in code. */
import {
  checkRowBatch,
  checkRowSearch,
  compareRows,
  type RowBatch,
  type RowPage,
  type RowSearch,
  rowMatches,
  type SearchRow,
} from '../search-rows.js';
import type { MemoryState } from './state.js';

export function putRows(state: MemoryState, batch: RowBatch): boolean {
  checkRowBatch(batch);
  if ((state.projections.get(batch.projection) ?? null) !== batch.after) return false;
  for (const row of batch.put) {
    const kind = state.rows.get(row.kind) ?? new Map<string, SearchRow>();
    state.rows.set(row.kind, kind);
    kind.set(row.key, { kind: row.kind, key: row.key, fields: { ...row.fields } });
  }
  for (const { kind, key } of batch.delete ?? []) state.rows.get(kind)?.delete(key);
  state.projections.set(batch.projection, batch.position);
  return true;
}

export function searchRows(state: MemoryState, search: RowSearch): RowPage {
  checkRowSearch(search);
  const of = (kind: string) => state.rows.get(kind)?.values() ?? [];
  const where = search.where ?? [];
  const keys = search.keys === undefined ? undefined : new Set(search.keys);
  const matching = [...of(search.kind)]
    .filter((row) => keys === undefined || keys.has(row.key))
    .filter((row) => where.every((condition) => rowMatches(row, condition, of)));
  matching.sort((a, b) => compareRows(search.sort ?? [], a, b));
  const from = search.from ?? 0;
  return {
    rows: matching.slice(from, from + search.limit).map((row) => ({ ...row, fields: { ...row.fields } })),
    total: matching.length,
  };
}
