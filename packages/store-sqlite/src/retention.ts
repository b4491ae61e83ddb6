/**
 * Retention on SQLite: the log's registered readers and `expire`, which deletes ended instances no reader still
 * needs, each as `delete` does, in one write transaction.
 */
import type { ExpireOptions, LogReader } from '@thresher/checkpoint';
import { deleteInstance } from './checkpoints.js';
import type { InstanceIdRow, ReaderRow } from './rows.js';
import type { Statements } from './statements.js';

export function putReader(sql: Statements, reader: LogReader, position: number | null): void {
  sql.upsertReader.run(reader.name, position, reader.cursor);
}

export function readReaders(sql: Statements): LogReader[] {
  return (sql.selectReaders.all() as ReaderRow[]).map(({ name, position, cursor }) => ({
    name,
    position: position === null ? null : String(position),
    cursor,
  }));
}

/** The ended instances `expire` may delete, oldest end first, deleted whole; returns their ids. */
export function expireInstances(sql: Statements, options: ExpireOptions): string[] {
  const { read_to } = sql.selectReadTo.get() as { read_to: number | null };
  const rows = sql.selectExpired.all({
    ended_before: options.endedBefore,
    read_to: read_to ?? Number.MAX_SAFE_INTEGER,
    limit: options.limit,
  }) as InstanceIdRow[];
  for (const { instance_id } of rows) deleteInstance(sql, instance_id);
  return rows.map((row) => row.instance_id);
}
