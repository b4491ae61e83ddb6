/**
 * A row search (`Repository.searchRows`) as SQL, for the SQL stores: one builder, each backend giving how it
 * reads a typed field out of a row's JSON, how it binds, and how it matches a `like` pattern. The meaning is
 * `search-rows.ts`'s: an absent field or one of another type is null here, and every test but `neq`, `notIn`
 * and `exists: false` fails on null.
 */
import type { RowCondition, RowSearch, RowType } from '../search-rows.js';

export interface RowDialect {
  /** The rows table, as the query names it. */
  table: string;
  /** The placeholder of the parameter at `index` (0-based). */
  placeholder(index: number): string;
  /** A field of the row under `alias`, as SQL of the type (null when absent or of another JSON type). */
  typed(alias: string, field: string, type: RowType): string;
  /** Whether the field is set (not absent, not null). */
  present(alias: string, field: string): string;
  /** The row's key under `alias`, compared by code point. */
  key(alias: string): string;
  /** A `like` pattern (`*`, `?`, `\` escapes) as the operator and operand the backend matches it with. */
  like(pattern: string): { operator: string; operand: string };
  /** A value as the backend binds it for a type. */
  bind(type: RowType, value: string | number | boolean): unknown;
}

/** The page query, the count query, and the parameters of each. */
export interface RowQuery {
  page: string;
  pageParams: unknown[];
  count: string;
  countParams: unknown[];
}

const COMPARE: Record<string, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * The page picks its keys first (from an index alone where the filter and order allow) and reads those rows' fields
 * after, so a page of 100 out of 10,000 matches sorts keys, not documents.
 */
export function rowQuery(dialect: RowDialect, search: RowSearch): RowQuery {
  const page = parameters(dialect);
  const count = parameters(dialect);
  const order = orderOf(dialect, search);
  const outerKind = page.param(search.kind);
  const picked =
    `SELECT r.key FROM ${dialect.table} r WHERE ${filterOf(dialect, search, page.param)} ` +
    `ORDER BY ${order} LIMIT ${page.param(search.limit)} OFFSET ${page.param(search.from ?? 0)}`;
  return {
    page:
      `SELECT r.key AS key, r.fields AS fields FROM ${dialect.table} r ` +
      `WHERE r.kind = ${outerKind} AND r.key IN (${picked}) ORDER BY ${order}`,
    pageParams: page.values,
    count: `SELECT count(*) AS total FROM ${dialect.table} r WHERE ${filterOf(dialect, search, count.param)}`,
    countParams: count.values,
  };
}

/** Parameters bound in the order a query names them. */
function parameters(dialect: RowDialect): { values: unknown[]; param: (value: unknown) => string } {
  const values: unknown[] = [];
  return {
    values,
    param: (value) => {
      values.push(value);
      return dialect.placeholder(values.length - 1);
    },
  };
}

function filterOf(dialect: RowDialect, search: RowSearch, param: (value: unknown) => string): string {
  const where = whereOf(dialect, 'r', search.kind, search.where ?? [], param);
  if (search.keys === undefined) return where;
  return search.keys.length === 0
    ? `${where} AND 1 = 0`
    : `${where} AND r.key IN (${search.keys.map(param).join(', ')})`;
}

/** The search's sorts (absent values last ascending, first descending), then the key as a decimal number. */
function orderOf(dialect: RowDialect, search: RowSearch): string {
  const order = (search.sort ?? []).flatMap(({ field, type, descending }) => {
    const value = dialect.typed('r', field, type);
    const direction = descending ? 'DESC' : 'ASC';
    const byValue =
      type === 'key' ? [`length(${value}) ${direction}`, `${value} ${direction}`] : [`${value} ${direction}`];
    return [`(${value} IS NULL) ${direction}`, ...byValue];
  });
  order.push(`length(${dialect.key('r')})`, dialect.key('r'));
  return order.join(', ');
}

function whereOf(
  dialect: RowDialect,
  alias: string,
  kind: string,
  conditions: readonly RowCondition[],
  param: (value: unknown) => string,
): string {
  const tests = [`${alias}.kind = ${param(kind)}`];
  for (const condition of conditions) tests.push(`(${test(dialect, alias, condition, param)})`);
  return tests.join(' AND ');
}

function test(dialect: RowDialect, alias: string, condition: RowCondition, param: (value: unknown) => string): string {
  if (condition.op === 'related') {
    const inner = `${alias}_${condition.kind}`.slice(0, 60);
    const link = dialect.typed(inner, condition.link, 'text');
    const where = whereOf(dialect, inner, condition.kind, condition.where, param);
    return `${dialect.key(alias)} IN (SELECT ${link} FROM ${dialect.table} ${inner} WHERE ${where})`;
  }
  if (condition.op === 'exists') {
    const present = dialect.present(alias, condition.field);
    return condition.value ? present : `NOT (${present})`;
  }
  if (condition.op === 'like') {
    const { operator, operand } = dialect.like(condition.pattern);
    return `${dialect.typed(alias, condition.field, 'text')} ${operator} ${param(operand)}`;
  }
  const value = dialect.typed(alias, condition.field, condition.type);
  const bound = (one: string | number | boolean) => param(dialect.bind(condition.type, one));
  if (condition.op === 'in' || condition.op === 'notIn') {
    if (condition.values.length === 0) return condition.op === 'in' ? '1 = 0' : '1 = 1';
    const list = `${value} IN (${condition.values.map(bound).join(', ')})`;
    return condition.op === 'in' ? list : `${value} IS NULL OR NOT (${list})`;
  }
  const compared = condition as Extract<RowCondition, { type: RowType; value: unknown }>;
  if (compared.op === 'neq') return `${value} IS NULL OR ${value} <> ${bound(compared.value)}`;
  const operator = COMPARE[compared.op]!;
  if (compared.type !== 'key' || compared.op === 'eq') return `${value} ${operator} ${bound(compared.value)}`;
  // Decimal keys order by length first: '9' < '10'. Bound once per use: SQLite's `?` takes one value each.
  const strict = operator.slice(0, 1);
  const length = compared.value.toString().length;
  // Bound in the order the text names them: SQLite's `?` takes values by position.
  const longer = `length(${value}) ${strict} ${param(length)}`;
  const sameLength = `length(${value}) = ${param(length)} AND ${value} ${operator} ${bound(compared.value)}`;
  return `${longer} OR (${sameLength})`;
}
