/**
 * Camunda's search, over the items an operation can list: `filter` by each field (a value, or an advanced filter:
 * `$eq`, `$neq`, `$exists`, `$in`, `$notIn`, `$like`, `$gt`, `$gte`, `$lt`, `$lte`, as the field's kind allows),
 * `sort` by fields (then by the item's id, so every order is total), and `page` by offset (`from`) or by the
 * cursors a page answers with (`after` its `endCursor`, `before` its `startCursor`). Every refusal names the field.
 */
import { z } from 'zod';
import { Problem, ProblemKind } from './problem.js';
import { readAs } from './schemas/read.js';

/** What a field holds, which decides how it compares and which operators filter it. */
export type FieldKind = 'string' | 'key' | 'integer' | 'date' | 'boolean' | 'enum';

type FieldValue = string | number | boolean | null | undefined;

export interface SearchField<T> {
  kind: FieldKind;
  value(item: T): FieldValue;
  /** Whether `sort` may name it (Camunda sorts by some fields only). */
  sortable?: boolean;
}

/** The fields of what is searched, and the id that orders ties (a key, or text). */
export interface Searchable<T> {
  fields: Record<string, SearchField<T>>;
  id(item: T): string;
  idKind: 'key' | 'string';
}

export interface SearchPage<T> {
  items: T[];
  /** The cursors are left out of an empty page (the spec types them as strings). */
  page: { totalItems: number; hasMoreTotalItems: boolean; startCursor?: string; endCursor?: string };
}

export const OPERATORS: Record<FieldKind, readonly string[]> = {
  string: ['$eq', '$neq', '$exists', '$in', '$notIn', '$like'],
  enum: ['$eq', '$neq', '$exists', '$in', '$notIn', '$like'],
  key: ['$eq', '$neq', '$exists', '$in', '$notIn'],
  integer: ['$eq', '$neq', '$exists', '$gt', '$gte', '$lt', '$lte', '$in'],
  date: ['$eq', '$neq', '$exists', '$gt', '$gte', '$lt', '$lte', '$in'],
  boolean: ['$eq', '$neq', '$exists'],
};

export const SearchQuery = z.strictObject({
  sort: z
    .array(z.strictObject({ field: z.string(), order: z.enum(['ASC', 'DESC', 'asc', 'desc']).optional() }))
    .nullish(),
  filter: z.record(z.string(), z.unknown()).nullish(),
  page: z
    .strictObject({
      from: z.int().min(0).optional(),
      limit: z.int().min(1).optional(),
      after: z.string().optional(),
      before: z.string().optional(),
    })
    .nullish(),
});

export const DEFAULT_LIMIT = 100;

/** Search `all` as the request `body` asks (`what` names the search in refusals). */
export function search<T>(all: readonly T[], body: unknown, spec: Searchable<T>, what: string): SearchPage<T> {
  const query = readAs(SearchQuery, body ?? {}, what);
  const tests = Object.entries(query.filter ?? {}).map(([name, condition]) => filterOf(spec, name, condition));
  const sort = (query.sort ?? []).map(({ field, order }, index) => ({
    field: sortField(spec.fields, field, index, what),
    descending: order?.toUpperCase() === 'DESC',
  }));
  const tuple = (item: T): unknown[] => [...sort.map(({ field }) => field.value(item) ?? null), spec.id(item)];
  const compareTuples = (a: unknown[], b: unknown[]): number => {
    for (const [index, { field, descending }] of sort.entries()) {
      const order = compareValues(field.kind, a[index], b[index]);
      if (order !== 0) return descending ? -order : order;
    }
    return compareValues(spec.idKind, a.at(-1), b.at(-1));
  };
  const matching = all.filter((item) => tests.every((test) => test(item)));
  const ordered = matching.map((item) => ({ item, key: tuple(item) })).sort((a, b) => compareTuples(a.key, b.key));
  const page = query.page ?? {};
  const limit = page.limit ?? DEFAULT_LIMIT;
  if ([page.from, page.after, page.before].filter((given) => given !== undefined).length > 1) {
    throw new Problem(ProblemKind.InvalidArgument, '$.page: give one of from, after and before');
  }
  let window: typeof ordered;
  if (page.after !== undefined) {
    const after = readCursor(page.after, '$.page.after', sort.length);
    window = ordered.filter(({ key }) => compareTuples(key, after) > 0).slice(0, limit);
  } else if (page.before !== undefined) {
    const before = readCursor(page.before, '$.page.before', sort.length);
    window = ordered.filter(({ key }) => compareTuples(key, before) < 0).slice(-limit);
  } else {
    window = ordered.slice(page.from ?? 0, (page.from ?? 0) + limit);
  }
  return {
    items: window.map(({ item }) => item),
    page: {
      totalItems: matching.length,
      hasMoreTotalItems: false,
      ...(window.length === 0
        ? {}
        : { startCursor: cursorOf(window[0]!.key), endCursor: cursorOf(window.at(-1)!.key) }),
    },
  };
}

/** The field a sort names, or a 400 naming the fields the search sorts by. */
export function sortField<F extends { sortable?: boolean }>(
  fields: Record<string, F>,
  field: string,
  index: number,
  what: string,
): F {
  const found = fields[field];
  if (found === undefined || found.sortable === false) {
    const sortable = Object.keys(fields).filter((name) => fields[name]!.sortable !== false);
    throw new Problem(
      ProblemKind.InvalidArgument,
      `$.sort[${index}].field: "${field}" is not a field ${what} sorts by (${sortable.join(', ')})`,
    );
  }
  return found;
}

function filterOf<T>(spec: Searchable<T>, name: string, condition: unknown): (item: T) => boolean {
  const field = spec.fields[name];
  if (field === undefined) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `$.filter.${name}: not a field this search filters by (${Object.keys(spec.fields).join(', ')})`,
    );
  }
  const where = `$.filter.${name}`;
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) {
    const wanted = operand(field.kind, condition, where);
    return (item) => compareValues(field.kind, field.value(item), wanted) === 0 && field.value(item) != null;
  }
  const tests = Object.entries(condition).map(([operator, given]): ((value: FieldValue) => boolean) => {
    const at = `${where}.${operator}`;
    if (!OPERATORS[field.kind].includes(operator)) {
      throw new Problem(
        ProblemKind.InvalidArgument,
        `${at}: not an operator of this field (${OPERATORS[field.kind].join(', ')})`,
      );
    }
    if (operator === '$exists') {
      if (typeof given !== 'boolean') throw new Problem(ProblemKind.InvalidArgument, `${at}: must be true or false`);
      return (value) => (value != null) === given;
    }
    if (operator === '$in' || operator === '$notIn') {
      if (!Array.isArray(given)) throw new Problem(ProblemKind.InvalidArgument, `${at}: must be a list`);
      const wanted = given.map((one, index) => operand(field.kind, one, `${at}[${index}]`));
      const within = (value: FieldValue) =>
        value != null && wanted.some((one) => compareValues(field.kind, value, one) === 0);
      return operator === '$in' ? within : (value) => !within(value);
    }
    if (operator === '$like') {
      if (typeof given !== 'string') throw new Problem(ProblemKind.InvalidArgument, `${at}: must be a string`);
      const pattern = likePattern(given);
      return (value) => value != null && pattern.test(String(value));
    }
    const wanted = operand(field.kind, given, at);
    const test = {
      $eq: (order: number) => order === 0,
      $neq: (order: number) => order !== 0,
      $gt: (order: number) => order > 0,
      $gte: (order: number) => order >= 0,
      $lt: (order: number) => order < 0,
      $lte: (order: number) => order <= 0,
    }[operator]!;
    if (operator === '$neq') return (value) => value == null || test(compareValues(field.kind, value, wanted));
    return (value) => value != null && test(compareValues(field.kind, value, wanted));
  });
  return (item) => {
    const value = field.value(item);
    return tests.every((test) => test(value));
  };
}

/** A filter's operand, checked to fit the field's kind. */
export function operand(kind: FieldKind, given: unknown, where: string): FieldValue {
  const fits =
    kind === 'integer'
      ? typeof given === 'number' && Number.isInteger(given)
      : kind === 'boolean'
        ? typeof given === 'boolean'
        : kind === 'key'
          ? typeof given === 'string' && /^\d{1,19}$/.test(given)
          : kind === 'date'
            ? typeof given === 'string' && !Number.isNaN(Date.parse(given))
            : typeof given === 'string';
  if (!fits) {
    const wanted = {
      integer: 'an integer',
      boolean: 'true or false',
      key: 'a key (an int64 as a decimal string)',
      date: 'a date-time (RFC 3339)',
      string: 'a string',
      enum: 'a string',
    }[kind];
    throw new Problem(ProblemKind.InvalidArgument, `${where}: must be ${wanted}, not ${JSON.stringify(given)}`);
  }
  return given as FieldValue;
}

/** How two values of a kind order; an absent value sorts last. */
function compareValues(kind: FieldKind, a: unknown, b: unknown): number {
  if (a == null || b == null) return a == null ? (b == null ? 0 : 1) : -1;
  if (kind === 'key') {
    const [x, y] = [BigInt(a as string), BigInt(b as string)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (kind === 'date') return Date.parse(a as string) - Date.parse(b as string);
  if (kind === 'integer') return (a as number) - (b as number);
  if (kind === 'boolean') return Number(a) - Number(b);
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `*` any run of characters, `?` one; a backslash escapes either. */
function likePattern(like: string): RegExp {
  let source = '';
  for (let index = 0; index < like.length; index++) {
    const char = like[index]!;
    if (char === '\\' && index + 1 < like.length) source += escapeRegExp(like[++index]!);
    else if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`, 'u');
}

function escapeRegExp(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function cursorOf(tuple: unknown[]): string {
  return Buffer.from(JSON.stringify(tuple)).toString('base64');
}

function readCursor(cursor: string, where: string, sorted: number): unknown[] {
  let tuple: unknown;
  try {
    tuple = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
  } catch {
    tuple = undefined;
  }
  if (!Array.isArray(tuple) || tuple.length !== sorted + 1) {
    throw new Problem(ProblemKind.InvalidArgument, `${where}: not a cursor a page of this search answered with`);
  }
  return tuple;
}
