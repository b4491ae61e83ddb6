/**
 * Discovery on SQLite: `instances` (one statement per filter shape, prepared on first use), `dueTimers` and
 * `subscriptions`, all read through the indexes `put` maintains.
 */
import type { DueTimer, InstanceQuery, InstanceSummary } from '@thresher/checkpoint';
import { type DueTimerRow, type InstanceRow, toDueTimer } from '@thresher/checkpoint/store-kit';
import type { SqliteDatabase, SqliteStatement } from './driver.js';
import { type InstanceIdRow, instanceFilter, type SubscriptionRow, toSummaries } from './rows.js';
import { type InstanceFilterShape, type Statements, selectInstancesSql } from './statements.js';

/** The `instances` statement of each filter shape, prepared once per connection on first use. */
export class InstanceStatements {
  readonly #db: SqliteDatabase;
  readonly #byShape = new Map<string, SqliteStatement>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** The prepared statement of `shape`. */
  of(shape: InstanceFilterShape): SqliteStatement {
    const key = Object.values(shape)
      .map((present) => (present ? '1' : '0'))
      .join('');
    let statement = this.#byShape.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(selectInstancesSql(shape));
      this.#byShape.set(key, statement);
    }
    return statement;
  }
}

/** `instances`: a page of summaries, with the page's subscriptions read at once (not one read per instance). */
export function readInstances(sql: Statements, byShape: InstanceStatements, query: InstanceQuery): InstanceSummary[] {
  const { shape, params } = instanceFilter(query);
  const rows = byShape.of(shape).all(params) as InstanceRow[];
  if (rows.length === 0) return [];
  const found = sql.selectSubscriptionsOf.all(JSON.stringify(rows.map((row) => row.instance_id))) as SubscriptionRow[];
  return toSummaries(rows, found);
}

/** `instanceIds`: the ids `instances` finds, read from the index alone where one serves the filter. */
export function readInstanceIds(byShape: InstanceStatements, query: InstanceQuery): string[] {
  const { shape, params } = instanceFilter(query);
  return (byShape.of({ ...shape, idsOnly: true }).all(params) as InstanceIdRow[]).map((row) => row.instance_id);
}

/** `dueTimers`: running instances whose earliest timer is due at `now`, earliest first. */
export function readDueTimers(sql: Statements, now: number, limit: number): DueTimer[] {
  return (sql.selectDueTimers.all(now, Math.max(0, limit)) as DueTimerRow[]).map(toDueTimer);
}

/** `subscriptions`: ids of running instances waiting on the message name and key (a null key matches null). */
export function readSubscribers(sql: Statements, name: string, key: string | null): string[] {
  return (sql.selectSubscribers.all(name, key) as InstanceIdRow[]).map((row) => row.instance_id);
}
