/**
 * The message buffer on SQLite. `takeMessage` runs inside the BEGIN IMMEDIATE transaction the repository
 * opens: the write lock is taken before the select, so two connections never pick the same message.
 */
import type { BufferedMessage } from '@thresher/checkpoint';
import { type MessageRow, toBufferedMessage } from '@thresher/checkpoint/store-kit';
import { messageParams } from './rows.js';
import type { Statements } from './statements.js';

/** `putMessage`: whether the message was stored (false when its id already was). */
export function putMessage(sql: Statements, message: BufferedMessage): boolean {
  return sql.insertMessage.run(messageParams(message)).changes > 0;
}

/** `takeMessage`: the message the taker already holds, else the oldest free unexpired one, now held by it. */
export function takeMessage(
  sql: Statements,
  names: readonly string[],
  key: string | null,
  now: number,
  taker: string,
): BufferedMessage | undefined {
  const list = JSON.stringify(names);
  const row = (sql.selectHeldMessage.get({ names: list, key, taker }) ??
    sql.selectFreeMessage.get({ names: list, key, now })) as MessageRow | undefined;
  if (row === undefined) return undefined;
  sql.holdMessage.run(taker, row.id);
  return toBufferedMessage(row);
}
