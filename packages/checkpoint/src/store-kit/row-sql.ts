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

/** The page query, the count query, and their parameters (the page's own last: limit, then offset). */
export interface RowQuery {
  page: string;
  pageParams: unknown[];
  count: string;
  countParams: unknown[];
}

const COMPARE: Record<string, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function rowQuery(dialect: RowDialect, search: RowSearch): RowQuery {
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return dialect.placeholder(params.length - 1);
  };
  let where = whereOf(dialect, 'r', search.kind, search.where ?? [], param);
  if (search.keys !== undefined) {
    where += search.keys.length === 0 ? ' AND 1 = 0' : ` AND r.key IN (${search.keys.map(param).join(', ')})`;
  }
  const whereParams = [...params];
  const order = (search.sort ?? []).flatMap(({ field, type, descending }) => {
    const value = dialect.typed('r', field, type);
    const direction = descending ? 'DESC' : 'ASC';
    const byValue =
      type === 'key' ? [`length(${value}) ${direction}`, `${value} ${direction}`] : [`${value} ${direction}`];
    return [`(${value} IS NULL) ${direction}`, ...byValue];
  });
  order.push(`length(${dialect.key('r')})`, dialect.key('r'));
  const select = `SELECT r.key AS key, r.fields AS fields FROM ${dialect.table} r WHERE ${where}`;
  const limit = param(search.limit);
  const offset = param(search.from ?? 0);
  return {
    page: `${select} ORDER BY ${order.join(', ')} LIMIT ${limit} OFFSET ${offset}`,
    pageParams: params,
    count: `SELECT count(*) AS total FROM ${dialect.table} r WHERE ${where}`,
    countParams: whereParams,
  };
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
  return `length(${value}) ${strict} ${param(length)} OR (length(${value}) = ${param(length)} AND ${value} ${operator} ${bound(compared.value)})`;
}
