// The storage limit: how many commits per second the store's driver sustains on this machine, for rows of
// the size Thresher writes, with nothing of Thresher in the way.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Two measurements taken before and after the measured section (so drift of a noisy machine during it hits
 * the limit too), combined: total rows over total time.
 */
export function combine(before, after) {
  const out = {
    rowBytes: after.rowBytes,
    commitsPerSecond: (before.rows + after.rows) / (before.seconds + after.seconds),
    spacedCommitMicros: after.spacedCommitMicros,
  };
  if (before.batchedRows !== undefined) {
    out.batchedRowsPerSecond =
      (before.batchedRows + after.batchedRows) / (before.batchedSeconds + after.batchedSeconds);
    out.batch = after.batch;
  }
  return out;
}

/** Keep the thread busy for `micros`, as an engine is between two of its commits. */
function busy(micros) {
  const until = performance.now() + micros / 1000;
  while (performance.now() < until);
}

/**
 * better-sqlite3 on a fresh file in `dir`, WAL with synchronous=FULL (what the SQLite store opens with):
 * `rows` INSERTs of `bytes` random bytes, each its own transaction (autocommit), then the same rows in
 * transactions of `batch` (what group commit could reach). Returns commits/s and rows/s; with `gapMicros`,
 * also `spacedCommitMicros`: a commit's mean time when the thread is busy for `gapMicros` before each (a
 * commit after a busy stretch takes longer than one in a tight loop).
 */
export function sqliteCommitRate({ dir, bytes, rows, batch = 100, name = 'raw-commit', gapMicros }) {
  const db = new Database(join(dir, `${name}.db`));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(
      'CREATE TABLE docs (id INTEGER PRIMARY KEY, instance TEXT NOT NULL, seq INTEGER NOT NULL, doc BLOB NOT NULL)',
    );
    const insert = db.prepare('INSERT INTO docs (instance, seq, doc) VALUES (?, ?, ?)');
    const payloads = Array.from({ length: 64 }, () => randomBytes(Math.max(1, Math.round(bytes))));
    // warm-up: the first commits extend the file and the WAL
    for (let i = 0; i < 50; i++) insert.run('warm', i, payloads[i % payloads.length]);
    let started = performance.now();
    for (let i = 0; i < rows; i++) insert.run(`i${i}`, i, payloads[i % payloads.length]);
    const singleSeconds = (performance.now() - started) / 1000;
    const many = db.transaction((from) => {
      for (let i = from; i < from + batch; i++) insert.run(`b${i}`, i, payloads[i % payloads.length]);
    });
    const batchedRows = Math.max(batch, Math.floor(rows / batch) * batch);
    started = performance.now();
    for (let from = 0; from < batchedRows; from += batch) many(from);
    const batchSeconds = (performance.now() - started) / 1000;
    let spacedMs = 0;
    if (gapMicros !== undefined) {
      for (let i = 0; i < rows; i++) {
        busy(gapMicros);
        const at = performance.now();
        insert.run(`s${i}`, i, payloads[i % payloads.length]);
        spacedMs += performance.now() - at;
      }
    }
    return {
      spacedCommitMicros: gapMicros === undefined ? undefined : (spacedMs * 1000) / rows,
      rowBytes: Math.round(bytes),
      rows,
      seconds: singleSeconds,
      commitsPerSecond: rows / singleSeconds,
      batchedRows,
      batchedSeconds: batchSeconds,
      batchedRowsPerSecond: batchedRows / batchSeconds,
      batch,
    };
  } finally {
    db.close();
  }
}

/**
 * PostgreSQL through pg on THRESHER_PG_URL: `rows` INSERTs of `bytes` random bytes into a BYTEA column of a
 * table in `schema`, each its own transaction (autocommit), on one connection. Returns commits/s; with
 * `gapMicros`, also `spacedCommitMicros` as {@link sqliteCommitRate} does.
 */
export async function postgresCommitRate({ schema, bytes, rows, name = 'raw_docs', gapMicros }) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.THRESHER_PG_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE "${schema}".${name} (id BIGSERIAL PRIMARY KEY, instance TEXT NOT NULL, seq INTEGER NOT NULL, doc BYTEA NOT NULL)`,
    );
    const payloads = Array.from({ length: 64 }, () => randomBytes(Math.max(1, Math.round(bytes))));
    const sql = `INSERT INTO "${schema}".${name} (instance, seq, doc) VALUES ($1, $2, $3)`;
    for (let i = 0; i < 50; i++) await client.query(sql, ['warm', i, payloads[i % payloads.length]]);
    const started = performance.now();
    for (let i = 0; i < rows; i++) await client.query(sql, [`i${i}`, i, payloads[i % payloads.length]]);
    const seconds = (performance.now() - started) / 1000;
    let spacedMs = 0;
    if (gapMicros !== undefined) {
      for (let i = 0; i < rows; i++) {
        busy(gapMicros);
        const at = performance.now();
        await client.query(sql, [`s${i}`, i, payloads[i % payloads.length]]);
        spacedMs += performance.now() - at;
      }
    }
    await client.query(`DROP TABLE "${schema}".${name}`);
    return {
      rowBytes: Math.round(bytes),
      rows,
      seconds,
      commitsPerSecond: rows / seconds,
      spacedCommitMicros: gapMicros === undefined ? undefined : (spacedMs * 1000) / rows,
    };
  } finally {
    await client.end();
  }
}
