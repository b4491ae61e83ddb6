/**
 * Search rows on PostgreSQL: a row's fields as JSONB, read with `->` and `->>`; text compares `COLLATE "C"`
 * (code point order) and `like` is LIKE (case-sensitive). A batch is one statement: the position moves only from
 * the one the writer read, and the rows are written only when it moved.
 */
import type { RowBatch, RowPage, RowSearch, RowType, SearchRow } from '@thresher/checkpoint';
import { type RowDialect, rowQuery } from '@thresher/checkpoint/store-kit';
import type { PgQueryable } from './driver.js';

/** A field of the row under `alias` (default none) as a value of `type`, else NULL. */
export function typedField(field: string, type: RowType, alias?: string): string {
  const value = `${alias === undefined ? 'fields' : `${alias}.fields`}->'${field}'`;
  const text = `${alias === undefined ? 'fields' : `${alias}.fields`}->>'${field}'`;
  if (type === 'number') return `(CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${text})::numeric END)`;
  if (type === 'boolean') return `(CASE WHEN jsonb_typeof(${value}) = 'boolean' THEN (${text})::boolean END)`;
  return `((CASE WHEN jsonb_typeof(${value}) = 'string' THEN ${text} END) COLLATE "C")`;
}

/** A `like` pattern as LIKE's: `*` → `%`, `?` → `_`, and LIKE's own `%`, `_` and `\\` escaped. */
function likeOf(pattern: string): string {
  let like = '';
  const chars = [...pattern];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (char === '\\' && index + 1 < chars.length) {
      const escaped = chars[++index]!;
      like += '%_\\'.includes(escaped) ? `\\${escaped}` : escaped;
    } else if (char === '*') like += '%';
    else if (char === '?') like += '_';
    else if ('%_\\'.includes(char)) like += `\\${char}`;
    else like += char;
  }
  return like;
}

export class PgRows {
  readonly #dialect: RowDialect;
  readonly #put: string;
  readonly #position: string;

  constructor(s: string) {
    this.#dialect = {
      table: `${s}.search_rows`,
      placeholder: (index) => `$${index + 1}`,
      typed: (alias, field, type) => typedField(field, type, alias),
      present: (alias, field) => `coalesce(jsonb_typeof(${alias}.fields->'${field}'), 'null') <> 'null'`,
      key: (alias) => `${alias}.key`,
      like: (pattern) => ({ operator: 'LIKE', operand: likeOf(pattern) }),
      bind: (_type, value) => value,
    };
    this.#position = `SELECT position FROM ${s}.projections WHERE projection = $1`;
    this.#put = `WITH created AS (
        INSERT INTO ${s}.projections (projection, position) SELECT $1, $3 WHERE $2::text IS NULL
        ON CONFLICT (projection) DO NOTHING RETURNING 1
      ), moved AS (
        UPDATE ${s}.projections SET position = $3 WHERE projection = $1 AND position = $2::text RETURNING 1
      ), went AS (
        SELECT 1 FROM created UNION ALL SELECT 1 FROM moved
      ), deleted AS (
        DELETE FROM ${s}.search_rows d USING jsonb_to_recordset($5::jsonb) AS x(kind text, key text)
        WHERE EXISTS (SELECT 1 FROM went) AND d.kind = x.kind AND d.key = x.key
      ), put AS (
        INSERT INTO ${s}.search_rows (kind, key, fields)
        SELECT x.kind, x.key, x.fields FROM jsonb_to_recordset($4::jsonb) AS x(kind text, key text, fields jsonb)
        WHERE EXISTS (SELECT 1 FROM went)
        ON CONFLICT (kind, key) DO UPDATE SET fields = EXCLUDED.fields
      )
      SELECT count(*) AS went FROM went`;
  }

  async position(db: PgQueryable, projection: string): Promise<string | null> {
    const { rows } = await db.query<{ position: string }>(this.#position, [projection]);
    return rows[0]?.position ?? null;
  }

  async put(db: PgQueryable, batch: RowBatch): Promise<boolean> {
    // One statement cannot write a row twice: the last put of a key wins, and a deleted key is not put.
    const deleted = new Set((batch.delete ?? []).map(({ kind, key }) => JSON.stringify([kind, key])));
    const put = new Map<string, SearchRow>();
    for (const row of batch.put) {
      const id = JSON.stringify([row.kind, row.key]);
      if (!deleted.has(id)) put.set(id, row);
    }
    const { rows } = await db.query<{ went: string | number }>(this.#put, [
      batch.projection,
      batch.after,
      batch.position,
      JSON.stringify([...put.values()].map(({ kind, key, fields }) => ({ kind, key, fields }))),
      JSON.stringify(batch.delete ?? []),
    ]);
    return Number(rows[0]?.went ?? 0) > 0;
  }

  async search(db: PgQueryable, search: RowSearch): Promise<RowPage> {
    const query = rowQuery(this.#dialect, search);
    const [page, count] = await Promise.all([
      db.query<{ key: string; fields: SearchRow['fields'] }>(query.page, query.pageParams),
      db.query<{ total: string | number }>(query.count, query.countParams),
    ]);
    return {
      rows: page.rows.map(({ key, fields }) => ({ kind: search.kind, key, fields })),
      total: Number(count.rows[0]?.total ?? 0),
    };
  }
}
