/**
 * Search rows: what a reader of the event log keeps searchable (a projection, as Camunda's exporters keep its
 * secondary storage), by kind and key, each row a flat record of fields. A batch of rows is written with the
 * position the projection read up to, only when the stored position is the one the writer read from, so two
 * processes projecting one log never write an older batch over a newer one. Searching filters, sorts and
 * pages in the store. This module holds the shapes, the argument rules every store checks, and the meaning of
 * a search for the stores that decide it in code.
 */
import { UnencodableValueError } from './errors.js';
import { checkInteger, checkObject, checkText, MAX_DOCUMENT_BYTES } from './input-rules.js';
import { compareCodePoints } from './put-rules.js';

/** A row field's value: text, a finite number, a boolean, or null (the same as absent). */
export type RowValue = string | number | boolean | null;

export interface SearchRow {
  /** What the row is (`processInstance`, `variable`…): a name of letters, digits and `_`, up to 64. */
  kind: string;
  /** Unique within its kind: text a store keeps (`checkText`). */
  key: string;
  /** Named like kinds; all of them together at most `MAX_DOCUMENT_BYTES` as JSON. */
  fields: Record<string, RowValue>;
}

/**
 * How a condition compares a field: `text` by code point, `number` numerically, `key` as a decimal number
 * written without leading zeros (shorter first, then by digit), `boolean` false before true. A field holding
 * a value of another JSON type than the condition's counts as absent for it.
 */
export type RowType = 'text' | 'number' | 'key' | 'boolean';

/**
 * One test of a row. An absent field (or null, or of another type) fails every test but `neq`, `notIn` and
 * `exists: false`. `like` matches text by `*` (any run), `?` (one character), `\` escaping either. `related`
 * holds when some row of `kind` whose text field `link` is this row's key passes every test of `where`.
 */
export type RowCondition =
  | { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; field: string; type: RowType; value: string | number | boolean }
  | { op: 'in' | 'notIn'; field: string; type: RowType; values: (string | number | boolean)[] }
  | { op: 'exists'; field: string; value: boolean }
  | { op: 'like'; field: string; pattern: string }
  | { op: 'related'; kind: string; link: string; where: RowCondition[] };

/** Sorts by a field: absent values last ascending, first descending. Ties go by key (as `key` compares). */
export interface RowSort {
  field: string;
  type: RowType;
  descending?: boolean;
}

export interface RowSearch {
  kind: string;
  /** Only rows with one of these keys. */
  keys?: string[];
  /** Every condition must hold. */
  where?: RowCondition[];
  sort?: RowSort[];
  /** Rows skipped, 0 by default. */
  from?: number;
  /** At most this many rows (1…10,000). */
  limit: number;
}

/** A page of rows and how many match in all. */
export interface RowPage {
  rows: SearchRow[];
  total: number;
}

/** What `putRows` writes: rows put whole (replacing a row of the same kind and key) and rows deleted. */
export interface RowBatch {
  /** The projection writing: a name of letters, digits, `_`, `-` and `.`, up to 64. */
  projection: string;
  /** The position the writer read on from: the projection's stored one (null: none yet). */
  after: string | null;
  /** The position the projection has read up to with this batch (text a store keeps). */
  position: string;
  put: SearchRow[];
  delete?: { kind: string; key: string }[];
}

/** The most rows a search returns at once. */
export const MAX_ROW_LIMIT = 10_000;

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const PROJECTION = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const TYPES: readonly RowType[] = ['text', 'number', 'key', 'boolean'];
const COMPARISONS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'];

function checkName(path: string, value: unknown): void {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw new UnencodableValueError(path, `${JSON.stringify(value)} is not a name of letters, digits and _ (up to 64)`);
  }
}

function checkValue(path: string, value: unknown, nullable: boolean): void {
  if (value === null && nullable) return;
  if (typeof value === 'string') return checkText(path, value, { maxBytes: MAX_DOCUMENT_BYTES });
  if (typeof value === 'boolean') return;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new UnencodableValueError(
      path,
      `${String(value)} is not text, a finite number, a boolean${nullable ? ' or null' : ''}`,
    );
  }
}

function checkType(path: string, value: unknown): void {
  if (!TYPES.includes(value as RowType)) {
    throw new UnencodableValueError(path, `${JSON.stringify(value)} is not a row type (${TYPES.join(', ')})`);
  }
}

/** @throws UnencodableValueError or LimitExceededError naming the field */
export function checkRowBatch(batch: RowBatch): void {
  checkObject('batch', batch);
  if (typeof batch.projection !== 'string' || !PROJECTION.test(batch.projection)) {
    throw new UnencodableValueError('batch.projection', `${JSON.stringify(batch.projection)} is not a projection name`);
  }
  checkText('batch.after', batch.after, { nullable: true });
  checkText('batch.position', batch.position);
  if (!Array.isArray(batch.put)) throw new UnencodableValueError('batch.put', 'it is not a list');
  batch.put.forEach((row, index) => {
    const at = `batch.put[${index}]`;
    checkObject(at, row);
    checkName(`${at}.kind`, row.kind);
    checkText(`${at}.key`, row.key);
    checkObject(`${at}.fields`, row.fields);
    for (const [name, value] of Object.entries(row.fields)) {
      checkName(`${at}.fields`, name);
      checkValue(`${at}.fields.${name}`, value, true);
    }
  });
  if (batch.delete !== undefined) {
    if (!Array.isArray(batch.delete)) throw new UnencodableValueError('batch.delete', 'it is not a list');
    batch.delete.forEach((row, index) => {
      checkName(`batch.delete[${index}].kind`, row?.kind);
      checkText(`batch.delete[${index}].key`, row?.key);
    });
  }
}

/** @throws UnencodableValueError or RangeError naming the field */
export function checkRowSearch(search: RowSearch): void {
  checkObject('search', search);
  checkName('search.kind', search.kind);
  if (search.keys !== undefined) {
    if (!Array.isArray(search.keys)) throw new UnencodableValueError('search.keys', 'it is not a list');
    for (const [index, key] of (search.keys as unknown[]).entries()) checkText(`search.keys[${index}]`, key);
  }
  checkConditions('search.where', search.where ?? []);
  if (search.sort !== undefined) {
    if (!Array.isArray(search.sort)) throw new UnencodableValueError('search.sort', 'it is not a list');
    search.sort.forEach((sort, index) => {
      checkName(`search.sort[${index}].field`, sort?.field);
      checkType(`search.sort[${index}].type`, sort.type);
    });
  }
  if (search.from !== undefined) checkInteger('search.from', search.from, 0);
  checkInteger('search.limit', search.limit, 1, MAX_ROW_LIMIT);
}

function checkConditions(path: string, where: readonly RowCondition[]): void {
  if (!Array.isArray(where)) throw new UnencodableValueError(path, 'it is not a list');
  for (const [index, condition] of where.entries()) {
    const at = `${path}[${index}]`;
    checkObject(at, condition);
    if (condition.op === 'related') {
      checkName(`${at}.kind`, condition.kind);
      checkName(`${at}.link`, condition.link);
      checkConditions(`${at}.where`, condition.where);
      continue;
    }
    checkName(`${at}.field`, condition.field);
    if (condition.op === 'exists') {
      if (typeof condition.value !== 'boolean') throw new UnencodableValueError(`${at}.value`, 'it is not a boolean');
    } else if (condition.op === 'like') {
      checkText(`${at}.pattern`, condition.pattern, { maxBytes: MAX_DOCUMENT_BYTES });
    } else if (condition.op === 'in' || condition.op === 'notIn') {
      checkType(`${at}.type`, condition.type);
      if (!Array.isArray(condition.values)) throw new UnencodableValueError(`${at}.values`, 'it is not a list');
      for (const [i, value] of (condition.values as unknown[]).entries()) {
        checkOperand(`${at}.values[${i}]`, condition.type, value);
      }
    } else if (COMPARISONS.includes(condition.op)) {
      checkType(`${at}.type`, condition.type);
      checkOperand(`${at}.value`, condition.type, condition.value);
    } else {
      throw new UnencodableValueError(
        `${at}.op`,
        `${JSON.stringify((condition as { op: unknown }).op)} is not an operator`,
      );
    }
  }
}

function checkOperand(path: string, type: RowType, value: unknown): void {
  const fits =
    type === 'number'
      ? typeof value === 'number' && Number.isFinite(value)
      : type === 'boolean'
        ? typeof value === 'boolean'
        : typeof value === 'string';
  if (!fits) throw new UnencodableValueError(path, `${JSON.stringify(value)} is not a ${type} operand`);
  if (typeof value === 'string') checkText(path, value, { maxBytes: MAX_DOCUMENT_BYTES });
}

// ---------------------------------------------------------------------------------------------------------
// A search decided in code (the memory store); the SQL stores decide the same in their queries.
// ---------------------------------------------------------------------------------------------------------

/** A field's value as a condition of `type` reads it: undefined when absent or of another JSON type. */
function typed(row: SearchRow, field: string, type: RowType): string | number | boolean | undefined {
  const value = Object.hasOwn(row.fields, field) ? row.fields[field] : null;
  if (type === 'number') return typeof value === 'number' ? value : undefined;
  if (type === 'boolean') return typeof value === 'boolean' ? value : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** How two present values of a type order. */
export function compareRowValues(type: RowType, a: string | number | boolean, b: string | number | boolean): number {
  if (type === 'number' || type === 'boolean') return Number(a) - Number(b);
  const [x, y] = [a as string, b as string];
  if (type === 'key' && x.length !== y.length) return x.length - y.length;
  return compareCodePoints(x, y);
}

/** `*` any run of characters, `?` one; a backslash escapes the character after it. */
function likeRegExp(pattern: string): RegExp {
  let source = '';
  const chars = [...pattern];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (char === '\\' && index + 1 < chars.length) source += escapeRegExp(chars[++index]!);
    else if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`, 'u');
}

function escapeRegExp(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Whether a row passes a condition; `rows` finds the rows of a kind (for `related`). */
export function rowMatches(
  row: SearchRow,
  condition: RowCondition,
  rows: (kind: string) => Iterable<SearchRow>,
): boolean {
  switch (condition.op) {
    case 'related': {
      for (const other of rows(condition.kind)) {
        if (
          typed(other, condition.link, 'text') === row.key &&
          condition.where.every((c) => rowMatches(other, c, rows))
        )
          return true;
      }
      return false;
    }
    case 'exists': {
      const value = Object.hasOwn(row.fields, condition.field) ? row.fields[condition.field] : null;
      return (value !== null && value !== undefined) === condition.value;
    }
    case 'like': {
      const value = typed(row, condition.field, 'text');
      return value !== undefined && likeRegExp(condition.pattern).test(value as string);
    }
    case 'in':
    case 'notIn': {
      const value = typed(row, condition.field, condition.type);
      const within =
        value !== undefined && condition.values.some((one) => compareRowValues(condition.type, value, one) === 0);
      return condition.op === 'in' ? within : !within;
    }
    default: {
      const value = typed(row, condition.field, condition.type);
      if (value === undefined) return condition.op === 'neq';
      const order = compareRowValues(condition.type, value, condition.value);
      return { eq: order === 0, neq: order !== 0, gt: order > 0, gte: order >= 0, lt: order < 0, lte: order <= 0 }[
        condition.op
      ];
    }
  }
}

/** Rows in a search's order: its sorts (absent values last ascending, first descending), then key. */
export function compareRows(sort: readonly RowSort[], a: SearchRow, b: SearchRow): number {
  for (const { field, type, descending } of sort) {
    const [x, y] = [typed(a, field, type), typed(b, field, type)];
    const order =
      x === undefined || y === undefined
        ? (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0)
        : compareRowValues(type, x, y);
    if (order !== 0) return descending ? -order : order;
  }
  return compareRowValues('key', a.key, b.key);
}
