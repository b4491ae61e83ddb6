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

/**
 * A commit's mean time (µs) over `rows` commits (`commit(i)`), the thread kept busy for `gapMicros` before
 * each, as an engine is between two of its commits; undefined without `gapMicros`.
 */
async function spacedCommitMicros(rows, gapMicros, commit) {
  if (gapMicros === undefined) return undefined;
  let ms = 0;
  for (let i = 0; i < rows; i++) {
    const until = performance.now() + gapMicros / 1000;
    while (performance.now() < until);
    const at = performance.now();
    await commit(i);
    ms += performance.now() - at;
  }
  return (ms * 1000) / rows;
}

/**
 * better-sqlite3 on a fresh file in `dir`, WAL with synchronous=FULL (what the SQLite store opens with):
 * `rows` INSERTs of `bytes` random bytes, each its own transaction (autocommit), then the same rows in
 * transactions of `batch` (what group commit could reach). Resolves commits/s and rows/s; with `gapMicros`,
 * also `spacedCommitMicros` ({@link spacedCommitMicros}: a commit after a busy stretch can take longer than
 * one in a tight loop).
 */
export async function sqliteCommitRate({ dir, bytes, rows, batch = 100, name = 'raw-commit', gapMicros }) {
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
    const spaced = await spacedCommitMicros(rows, gapMicros, (i) =>
      insert.run(`s${i}`, i, payloads[i % payloads.length]),
    );
    return {
      spacedCommitMicros: spaced,
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
 * `gapMicros`, also `spacedCommitMicros` ({@link spacedCommitMicros}).
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
    const spaced = await spacedCommitMicros(rows, gapMicros, (i) =>
      client.query(sql, [`s${i}`, i, payloads[i % payloads.length]]),
    );
    await client.query(`DROP TABLE "${schema}".${name}`);
    return {
      rowBytes: Math.round(bytes),
      rows,
      seconds,
      commitsPerSecond: rows / seconds,
      spacedCommitMicros: spaced,
    };
  } finally {
    await client.end();
  }
}
