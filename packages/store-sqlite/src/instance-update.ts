/**
 * A put's write of an existing instance row: `latest_seq` and only the columns whose value changed, so that
 * SQLite leaves the indexes of unchanged columns alone (it rewrites an index whenever the SET names one of its
 * columns, same value or not, and every page written is a page the commit syncs).
 */
import type { SqliteDatabase, SqliteStatement } from './driver.js';
import type { PutStateRow } from './rows.js';
import { PUT_COLUMNS, updateInstanceSql } from './statements.js';

/** The UPDATE of each set of changed columns, prepared once per connection on first use. */
export class InstanceUpdates {
  readonly #db: SqliteDatabase;
  readonly #byKey = new Map<string, SqliteStatement>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** Write `params` (`instanceParams` of the put) over the stored `row`; with `release`, clear the lease too. */
  run(row: PutStateRow, params: Record<string, unknown>, release: boolean): void {
    const changed = PUT_COLUMNS.filter((column) => row[column] !== params[column]);
    const key = `${changed.join(',')}|${release}`;
    let statement = this.#byKey.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(updateInstanceSql(changed, release));
      this.#byKey.set(key, statement);
    }
    statement.run(params);
  }
}
