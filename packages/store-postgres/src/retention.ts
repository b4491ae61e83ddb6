/**
 * Retention on PostgreSQL: the log's registered readers and `expire`, which deletes ended instances no reader
 * still needs, each as `delete` does, in the transaction the repository opens.
 */
import type { ExpireOptions, LogReader } from '@thresher/checkpoint';
import { deleteInstance, positionOf } from './checkpoints.js';
import type { PgQueryable } from './driver.js';
import type { InstanceIdRow, Int8, ReaderRow } from './rows.js';
import type { Statements } from './statements.js';

export async function putReader(
  client: PgQueryable,
  sql: Statements,
  reader: LogReader,
  at: [string | null, string | null],
): Promise<void> {
  await client.query(sql.upsertReader, [reader.name, ...at, reader.cursor]);
}

export async function readReaders(client: PgQueryable, sql: Statements): Promise<LogReader[]> {
  const { rows } = await client.query<ReaderRow>(sql.selectReaders, []);
  return rows.map(({ name, tx, position, cursor }) => ({
    name,
    position: tx === null || position === null ? null : positionOf(tx, position),
    cursor,
  }));
}

/** The ended instances `expire` may delete, oldest end first, deleted whole; returns their ids. */
export async function expireInstances(client: PgQueryable, sql: Statements, options: ExpireOptions): Promise<string[]> {
  const read = (await client.query<{ tx: string; position: Int8 }>(sql.selectReadTo, [])).rows[0];
  const { rows } = await client.query<InstanceIdRow>(sql.selectExpired, [
    options.endedBefore,
    read?.tx ?? null,
    read === undefined ? null : read.position,
    options.limit,
  ]);
  for (const { instance_id } of rows) await deleteInstance(client, sql, instance_id);
  return rows.map((row) => row.instance_id);
}
