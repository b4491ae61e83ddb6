/**
 * Discovery on PostgreSQL: `instances` (one statement for the filters present, with each summary's
 * subscriptions aggregated in it), `dueTimers` and `subscriptions`, all read through the indexes `put`
 * maintains.
 */
import type { DueTimer, InstanceQuery, InstanceSummary } from '@thresher/checkpoint';
import { type DueTimerRow, toDueTimer } from '@thresher/checkpoint/store-kit';
import type { PgQueryable } from './driver.js';
import { type InstanceIdRow, instanceFilter, pageSize, type SummaryRow, toSummary } from './rows.js';
import type { Statements } from './statements.js';

/** `instances`: a page of summaries. */
export async function readInstances(
  db: PgQueryable,
  sql: Statements,
  query: InstanceQuery,
): Promise<InstanceSummary[]> {
  const { text, values } = sql.selectInstances(instanceFilter(query));
  const { rows } = await db.query<SummaryRow>(text, values);
  return rows.map(toSummary);
}

/** `instanceIds`: the ids `instances` finds, read from the index alone where one serves the filter. */
export async function readInstanceIds(db: PgQueryable, sql: Statements, query: InstanceQuery): Promise<string[]> {
  const { text, values } = sql.selectInstances({ ...instanceFilter(query), idsOnly: true });
  const { rows } = await db.query<InstanceIdRow>(text, values);
  return rows.map((row) => row.instance_id);
}

/** `dueTimers`: running instances whose earliest timer is due at `now`, earliest first. */
export async function readDueTimers(db: PgQueryable, sql: Statements, now: number, limit: number): Promise<DueTimer[]> {
  const { rows } = await db.query<DueTimerRow>(sql.selectDueTimers, [now, pageSize(limit)]);
  return rows.map(toDueTimer);
}

/** `subscriptions`: ids of running instances waiting on the message name and key (a null key matches null). */
export async function readSubscribers(
  db: PgQueryable,
  sql: Statements,
  name: string,
  key: string | null,
): Promise<string[]> {
  const { rows } =
    key === null
      ? await db.query<InstanceIdRow>(sql.selectSubscribersWithoutKey, [name])
      : await db.query<InstanceIdRow>(sql.selectSubscribers, [name, key]);
  return rows.map((row) => row.instance_id);
}
