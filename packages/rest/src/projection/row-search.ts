/**
 * Camunda's search (`search.ts`'s rules: the same filters, operators, sorts and pages) over the rows the search
 * projection keeps, decided in the store: a filter becomes row conditions, a sort row sorts, a page an offset
 * (its cursors carry the offset they stand at).
 */
import type { Repository, RowCondition, RowSort, RowType } from '@thresher/checkpoint';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from '../schemas/read.js';
import {
  DEFAULT_LIMIT,
  type FieldKind,
  OPERATORS,
  operand,
  type SearchPage,
  SearchQuery,
  sortField,
} from '../search.js';

/** A field a search filters (and sorts) by: what it holds, and the row field it is kept in (default its name). */
export interface RowField {
  kind: FieldKind;
  sortable?: boolean;
  row?: string;
}

/** A filter field that is no row field of its own: it becomes conditions of its own making. */
export type CustomFilter = (condition: unknown, where: string) => RowCondition[];

export interface RowSearchable {
  /** The row kind searched. */
  kind: string;
  fields: Record<string, RowField>;
  custom?: Record<string, CustomFilter>;
  /** Sorts after the request's, before the key: the order a kind's rows were made in, where keys do not tell it. */
  tieBreak?: RowSort[];
}

const TYPES: Record<FieldKind, RowType> = {
  string: 'text',
  enum: 'text',
  key: 'key',
  integer: 'number',
  date: 'text',
  boolean: 'boolean',
};

const COMPARISONS: Record<string, 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'> = {
  $eq: 'eq',
  $neq: 'neq',
  $gt: 'gt',
  $gte: 'gte',
  $lt: 'lt',
  $lte: 'lte',
};

/** A row kept by the projection holds the item the search answers, as JSON, in its `body` field. */
export const BODY = 'body';

/** Search the projection's rows as the request `body` asks (`what` names the search in refusals). */
export async function searchRows(
  repository: Repository,
  body: unknown,
  spec: RowSearchable,
  what: string,
): Promise<SearchPage<Record<string, unknown>>> {
  const query = readAs(SearchQuery, body ?? {}, what);
  const where = Object.entries(query.filter ?? {}).flatMap(([name, condition]) =>
    conditionsOf(spec, name, condition, `$.filter.${name}`),
  );
  const sort = (query.sort ?? []).map(({ field, order }, index): RowSort => {
    const found = sortField(spec.fields, field, index, what);
    return { field: found.row ?? field, type: TYPES[found.kind], descending: order?.toUpperCase() === 'DESC' };
  });
  const page = query.page ?? {};
  if ([page.from, page.after, page.before].filter((given) => given !== undefined).length > 1) {
    throw new Problem(ProblemKind.InvalidArgument, '$.page: give one of from, after and before');
  }
  const limit = Math.min(page.limit ?? DEFAULT_LIMIT, 10_000);
  let from = page.from ?? 0;
  if (page.after !== undefined) from = readCursor(page.after, '$.page.after') + 1;
  if (page.before !== undefined) from = Math.max(0, readCursor(page.before, '$.page.before') - limit);
  const found = await repository.searchRows({
    kind: spec.kind,
    where,
    sort: [...sort, ...(spec.tieBreak ?? [])],
    from,
    limit,
  });
  const items = found.rows.map((row) => JSON.parse(String(row.fields[BODY])) as Record<string, unknown>);
  return {
    items,
    page: {
      totalItems: found.total,
      hasMoreTotalItems: false,
      ...(items.length === 0 ? {} : { startCursor: cursorOf(from), endCursor: cursorOf(from + items.length - 1) }),
    },
  };
}

/** The conditions a search's `filter` asks of the rows `spec` searches (a batch operation's filter, say). */
export function filterConditions(spec: RowSearchable, filter: Record<string, unknown>, at: string): RowCondition[] {
  return Object.entries(filter).flatMap(([name, condition]) => conditionsOf(spec, name, condition, `${at}.${name}`));
}

function conditionsOf(spec: RowSearchable, name: string, condition: unknown, where: string): RowCondition[] {
  const custom = spec.custom?.[name];
  if (custom !== undefined) return custom(condition, where);
  const field = spec.fields[name];
  if (field === undefined) {
    const names = [...Object.keys(spec.fields), ...Object.keys(spec.custom ?? {})];
    throw new Problem(
      ProblemKind.InvalidArgument,
      `${where}: not a field this search filters by (${names.join(', ')})`,
    );
  }
  return fieldConditions(field.row ?? name, field.kind, condition, where);
}

/** The conditions a value or an advanced filter (`{ $eq: … }`) on a field of a kind asks for. */
export function fieldConditions(row: string, kind: FieldKind, condition: unknown, where: string): RowCondition[] {
  const type = TYPES[kind];
  const value = (given: unknown, at: string) => normalized(kind, operand(kind, given, at));
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) {
    return [{ op: 'eq', field: row, type, value: value(condition, where) }];
  }
  return Object.entries(condition).map(([operator, given]): RowCondition => {
    const at = `${where}.${operator}`;
    if (!OPERATORS[kind].includes(operator)) {
      throw new Problem(
        ProblemKind.InvalidArgument,
        `${at}: not an operator of this field (${OPERATORS[kind].join(', ')})`,
      );
    }
    if (operator === '$exists') {
      if (typeof given !== 'boolean') throw new Problem(ProblemKind.InvalidArgument, `${at}: must be true or false`);
      return { op: 'exists', field: row, value: given };
    }
    if (operator === '$in' || operator === '$notIn') {
      if (!Array.isArray(given)) throw new Problem(ProblemKind.InvalidArgument, `${at}: must be a list`);
      const values = given.map((one, index) => value(one, `${at}[${index}]`));
      return { op: operator === '$in' ? 'in' : 'notIn', field: row, type, values };
    }
    if (operator === '$like') {
      if (typeof given !== 'string') throw new Problem(ProblemKind.InvalidArgument, `${at}: must be a string`);
      return { op: 'like', field: row, pattern: given };
    }
    return { op: COMPARISONS[operator]!, field: row, type, value: value(given, at) };
  });
}

/** Dates are kept as `toISOString` writes them, so a date compares as text; an operand is written the same way. */
function normalized(kind: FieldKind, value: unknown): string | number | boolean {
  if (kind === 'date') return new Date(value as string).toISOString();
  return value as string | number | boolean;
}

function cursorOf(offset: number): string {
  return Buffer.from(JSON.stringify({ at: offset })).toString('base64');
}

function readCursor(cursor: string, where: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const at = (parsed as { at?: unknown } | undefined)?.at;
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0) {
    throw new Problem(ProblemKind.InvalidArgument, `${where}: not a cursor a page of this search answered with`);
  }
  return at;
}
