/**
 * Search rows on SQLite: a row's fields as JSON text, read with the JSON functions; a search is one query for the
 * page and one for the count, in one read transaction. Text compares by bytes (BINARY: code point order) and
 * `like` is GLOB, which is case-sensitive as the contract is.
 */
import type { RowBatch, RowPage, RowSearch, RowType, SearchRow } from '@thresher/checkpoint';
import { type RowDialect, rowQuery } from '@thresher/checkpoint/store-kit';
import type { SqliteDatabase, SqliteStatement } from './connection.js';

/** A field of the row under `alias` (default none) as a value of `type`, else NULL. */
export function typedField(field: string, type: RowType, alias?: string): string {
  const fields = alias === undefined ? 'fields' : `${alias}.fields`;
  const path = `'$.${field}'`;
  const jsonType = `json_type(${fields}, ${path})`;
  if (type === 'number')
    return `(CASE WHEN ${jsonType} IN ('integer', 'real') THEN json_extract(${fields}, ${path}) END)`;
  if (type === 'boolean') return `(CASE ${jsonType} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
  return `(CASE ${jsonType} WHEN 'text' THEN json_extract(${fields}, ${path}) END)`;
}

const dialect: RowDialect = {
  table: 'search_rows',
  placeholder: () => '?',
  // The index expressions (migrations.ts) are written without an alias; the outer query's rows are read unaliased.
  typed: (alias, field, type) => typedField(field, type, alias === 'r' ? undefined : alias),
  present: (alias, field) =>
    `coalesce(json_type(${alias === 'r' ? 'fields' : `${alias}.fields`}, '$.${field}'), 'null') <> 'null'`,
  key: (alias) => `${alias}.key`,
  like: (pattern) => ({ operator: 'GLOB', operand: globOf(pattern) }),
  bind: (type, value) => (type === 'boolean' ? Number(value) : value),
};

/** A `like` pattern as GLOB: `*` and `?` as they are, an escaped or bracket character inside brackets. */
function globOf(pattern: string): string {
  let glob = '';
  const chars = [...pattern];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (char === '\\' && index + 1 < chars.length) {
      const escaped = chars[++index]!;
      glob += '*?['.includes(escaped) ? `[${escaped}]` : escaped;
    } else if (char === '[') {
      glob += '[[]';
    } else {
      glob += char;
    }
  }
  return glob;
}

export class RowStatements {
  readonly #db: SqliteDatabase;
  readonly #put: SqliteStatement;
  readonly #delete: SqliteStatement;
  readonly #position: SqliteStatement;
  readonly #setPosition: SqliteStatement;
  /** Searches prepared by their SQL text (a search's shape, not its values), the latest kept. */
  readonly #prepared = new Map<string, SqliteStatement>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#put = db.prepare('INSERT OR REPLACE INTO search_rows (kind, key, fields) VALUES (?, ?, ?)');
    this.#delete = db.prepare('DELETE FROM search_rows WHERE kind = ? AND key = ?');
    this.#position = db.prepare('SELECT position FROM projections WHERE projection = ?');
    this.#setPosition = db.prepare('INSERT OR REPLACE INTO projections (projection, position) VALUES (?, ?)');
  }

  position(projection: string): string | null {
    return (this.#position.get(projection) as { position: string } | undefined)?.position ?? null;
  }

  /** `putRows`, inside the caller's IMMEDIATE transaction: the position is read under the write lock. */
  put(batch: RowBatch): boolean {
    if (this.position(batch.projection) !== batch.after) return false;
    for (const row of batch.put) this.#put.run(row.kind, row.key, JSON.stringify(row.fields));
    for (const row of batch.delete ?? []) this.#delete.run(row.kind, row.key);
    this.#setPosition.run(batch.projection, batch.position);
    return true;
  }

  search(search: RowSearch): RowPage {
    const query = rowQuery(dialect, search);
    const rows = this.#statement(query.page).all(...query.pageParams) as { key: string; fields: string }[];
    const { total } = this.#statement(query.count).get(...query.countParams) as { total: number };
    return {
      rows: rows.map(({ key, fields }): SearchRow => ({ kind: search.kind, key, fields: JSON.parse(fields) })),
      total,
    };
  }

  #statement(sql: string): SqliteStatement {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) {
      if (this.#prepared.size >= 200) this.#prepared.delete(this.#prepared.keys().next().value!);
      statement = this.#db.prepare(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }
}
