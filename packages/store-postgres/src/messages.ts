/**
 * The message buffer on PostgreSQL. `takeMessage` is one statement that picks `FOR UPDATE SKIP LOCKED` and
 * marks the pick held, so concurrent takers pass over each other's pick instead of waiting for it.
 */
import type { BufferedMessage } from '@thresher/checkpoint';
import { type MessageRow, toBufferedMessage } from '@thresher/checkpoint/store-kit';
import type { PgQueryable } from './driver.js';
import { messageParams } from './rows.js';
import type { Statements } from './statements.js';

/** `deleteMessage`: whether a message of that id was there. */
export async function deleteMessage(db: PgQueryable, sql: Statements, id: string): Promise<boolean> {
  const { rowCount } = await db.query(sql.deleteMessage, [id]);
  return (rowCount ?? 0) > 0;
}

/** `expireMessages`: how many buffered messages had expired by `now`, deleted. */
export async function expireMessages(db: PgQueryable, sql: Statements, now: number): Promise<number> {
  const { rowCount } = await db.query(sql.expireMessages, [now]);
  return rowCount ?? 0;
}

/** `putMessage`: whether the message was stored (false when its id already was). */
export async function putMessage(db: PgQueryable, sql: Statements, message: BufferedMessage): Promise<boolean> {
  const { rowCount } = await db.query(sql.insertMessage, messageParams(message));
  return (rowCount ?? 0) > 0;
}

/** `takeMessage`: the message the taker already holds, else the oldest free unexpired one, now held by it. */
export async function takeMessage(
  db: PgQueryable,
  sql: Statements,
  names: readonly string[],
  key: string | null,
  now: number,
  taker: string,
): Promise<BufferedMessage | undefined> {
  const statement = key === null ? sql.takeMessageWithoutKey : sql.takeMessage;
  const { rows } = await db.query<MessageRow>(statement, [[...names], key, now, taker]);
  return rows[0] === undefined ? undefined : toBufferedMessage(rows[0]);
}
