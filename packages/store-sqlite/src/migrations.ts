import { CheckpointError, CheckpointErrorCode } from '@thresher/checkpoint';
import { assertKnownStoreSchema, type SchemaMigration } from '@thresher/checkpoint/store-kit';
import type { SqliteDatabase } from './connection.js';
import { typedField } from './search-rows.js';

/** One schema step. Its position in {@link MIGRATIONS} (1-based) is the schema version it produces. */
export interface Migration extends SchemaMigration {
  /**
   * The step drops and re-creates a table others reference: it runs with foreign keys off (a `DROP TABLE`
   * would otherwise cascade into the referencing rows), and does not commit if it left a reference broken.
   */
  rebuildsTables?: true;
}

// A row field as searches read it (search-rows.ts's `sqliteDialect`): the index expressions must be the same text.
const typedState = typedField('state', 'text');
const typedInstance = typedField('processInstanceKey', 'text');
const typedName = typedField('name', 'text');
const typedValue = typedField('value', 'text');

/**
 * The schema, as an append-only list: never edit or reorder a shipped entry, only add one at the end.
 * A database records how many have been applied in `PRAGMA user_version`.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    description: 'instances, checkpoints, writes and deployments',
    sql: `
      CREATE TABLE instances (
        instance_id       TEXT    NOT NULL PRIMARY KEY,
        latest_seq        INTEGER NOT NULL,
        definition_digest TEXT    NOT NULL,
        status            TEXT    NOT NULL,
        process_id        TEXT    NOT NULL,
        definition_id     TEXT    NOT NULL,
        business_key      TEXT,
        parent_id         TEXT,
        call_node_id      TEXT
      );
      CREATE INDEX instances_by_status ON instances (status, instance_id);
      CREATE INDEX instances_by_definition ON instances (definition_id, instance_id);
      CREATE INDEX instances_by_parent ON instances (parent_id, instance_id);

      CREATE TABLE checkpoints (
        instance_id       TEXT    NOT NULL REFERENCES instances (instance_id) ON DELETE CASCADE,
        seq               INTEGER NOT NULL,
        parent_seq        INTEGER,
        schema            INTEGER NOT NULL,
        definition_digest TEXT    NOT NULL,
        digest            TEXT    NOT NULL,
        document          BLOB    NOT NULL,
        PRIMARY KEY (instance_id, seq)
      );

      CREATE TABLE writes (
        instance_id TEXT    NOT NULL,
        seq         INTEGER NOT NULL,
        task_id     TEXT    NOT NULL,
        idx         INTEGER NOT NULL,
        ord         INTEGER NOT NULL,
        value       BLOB    NOT NULL,
        PRIMARY KEY (instance_id, seq, task_id, idx),
        FOREIGN KEY (instance_id, seq) REFERENCES checkpoints (instance_id, seq) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX writes_in_order ON writes (instance_id, seq, ord);

      CREATE TABLE deployments (
        ord           INTEGER NOT NULL PRIMARY KEY,
        digest        TEXT    NOT NULL UNIQUE,
        definition_id TEXT    NOT NULL,
        version       INTEGER NOT NULL,
        xml           TEXT    NOT NULL,
        deployed_at   INTEGER NOT NULL,
        UNIQUE (definition_id, version)
      );
    `,
  },
  {
    description: 'due timers, message subscriptions, leases and the store-wide fencing token sequence',
    sql: `
      ALTER TABLE instances ADD COLUMN due_at INTEGER;
      -- Status first, so the planner prefers it to instances_by_status; partial, as most instances have no timer.
      CREATE INDEX instances_due ON instances (status, due_at, instance_id) WHERE due_at IS NOT NULL;

      CREATE TABLE subscriptions (
        instance_id TEXT    NOT NULL REFERENCES instances (instance_id) ON DELETE CASCADE,
        ord         INTEGER NOT NULL,
        name        TEXT    NOT NULL,
        key         TEXT,
        PRIMARY KEY (instance_id, ord)
      );
      CREATE INDEX subscriptions_by_message ON subscriptions (name, key, instance_id);

      -- A row per held lease: releasing deletes it. Tokens come from the sequence below, so they never repeat.
      CREATE TABLE leases (
        instance_id TEXT    NOT NULL PRIMARY KEY REFERENCES instances (instance_id) ON DELETE CASCADE,
        owner       TEXT    NOT NULL,
        token       INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL
      );

      CREATE TABLE sequences (
        name  TEXT    NOT NULL PRIMARY KEY,
        value INTEGER NOT NULL
      );
      INSERT INTO sequences (name, value) VALUES ('lease_token', 0);
    `,
  },
  {
    description: 'messages buffered before their subscription',
    sql: `
      -- taker: the instance holding the message between takeMessage and deleteMessage; NULL while free.
      CREATE TABLE messages (
        id              TEXT    NOT NULL PRIMARY KEY,
        name            TEXT    NOT NULL,
        correlation_key TEXT,
        variables       BLOB    NOT NULL,
        published_at    INTEGER NOT NULL,
        expires_at      INTEGER NOT NULL,
        taker           TEXT
      );
      -- takeMessage's order: oldest first by published_at, ties by id (BINARY: code point order).
      CREATE INDEX messages_by_subscription ON messages (name, correlation_key, published_at, id);
      CREATE INDEX messages_by_expiry ON messages (expires_at);
    `,
  },
  {
    description: 'the root of every instance call tree, for instances({ rootId })',
    sql: `
      -- Written by every put from the parent's row; nullable only because SQLite cannot add a NOT NULL column.
      ALTER TABLE instances ADD COLUMN root_id TEXT;
      -- Existing rows: walk down from each root (an instance with no parent, or whose parent is not stored,
      -- whose root is then that parent's id), as put would have derived it.
      WITH RECURSIVE tree (instance_id, root_id) AS (
        SELECT i.instance_id, COALESCE(i.parent_id, i.instance_id) FROM instances i
        WHERE i.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM instances p WHERE p.instance_id = i.parent_id)
        UNION ALL
        SELECT c.instance_id, tree.root_id FROM instances c JOIN tree ON c.parent_id = tree.instance_id
      )
      UPDATE instances SET root_id = tree.root_id FROM tree WHERE tree.instance_id = instances.instance_id;
      -- A cycle of parent links (which no put makes) reaches no root: each of its instances roots itself.
      UPDATE instances SET root_id = instance_id WHERE root_id IS NULL;
      CREATE INDEX instances_by_root ON instances (root_id, instance_id);
    `,
  },
  {
    description: 'the held lease on the instance row; root instances out of the parent index',
    sql: `
      -- The lease moves onto the row every put writes anyway, so a claim or a release writes no table (and
      -- primary-key index) of its own. Tokens still come from the store-wide sequences row.
      ALTER TABLE instances ADD COLUMN lease_owner TEXT;
      ALTER TABLE instances ADD COLUMN lease_token INTEGER;
      ALTER TABLE instances ADD COLUMN lease_expires_at INTEGER;
      UPDATE instances SET lease_owner = l.owner, lease_token = l.token, lease_expires_at = l.expires_at
        FROM leases l WHERE l.instance_id = instances.instance_id;
      DROP TABLE leases;
      -- Held leases only, as the leases table was: what a sweep for work left behind reads. Keyed by id alone,
      -- so a renew (which changes only the expiry) does not write it.
      CREATE INDEX instances_leased ON instances (instance_id) WHERE lease_owner IS NOT NULL;
      -- Most instances are roots, whose puts then write no entry here; parent_id = ? still uses it.
      DROP INDEX instances_by_parent;
      CREATE INDEX instances_by_parent ON instances (parent_id, instance_id) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    description: 'completed instances out of the status index, roots out of the root index',
    sql: `
      -- Completed instances are most of a store and are never written again: an ending put deletes the
      -- instance's entry and inserts none (a random page less per put). Queries for any other status name
      -- the index's condition; listing completed instances reads the table in id order.
      DROP INDEX instances_by_status;
      CREATE INDEX instances_by_status ON instances (status, instance_id) WHERE status <> 'completed';
      -- Most instances are roots, whose first put then writes no entry here: a tree is its root, found by
      -- its id, and the descendants this index holds.
      DROP INDEX instances_by_root;
      CREATE INDEX instances_by_root ON instances (root_id, instance_id) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    description: "the checkpoint log's positions (history): rowids, never handed out twice",
    sql: `
      -- A checkpoint's rowid is its position; a delete raises this floor to the newest rowid first, so the
      -- next put does not take a deleted checkpoint's position again.
      INSERT INTO sequences (name, value) VALUES ('position_floor', 0);
    `,
  },
  {
    description: 'instances WITHOUT ROWID: the row lives in its primary key',
    rebuildsTables: true,
    sql: `
      -- A rowid table keeps the row and its primary key in two b-trees: an instance's first put wrote a page of
      -- each, and every put and claim found the row through the key first. Same columns, in the same order.
      CREATE TABLE instances_rebuilt (
        instance_id       TEXT    NOT NULL PRIMARY KEY,
        latest_seq        INTEGER NOT NULL,
        definition_digest TEXT    NOT NULL,
        status            TEXT    NOT NULL,
        process_id        TEXT    NOT NULL,
        definition_id     TEXT    NOT NULL,
        business_key      TEXT,
        parent_id         TEXT,
        call_node_id      TEXT,
        due_at            INTEGER,
        root_id           TEXT,
        lease_owner       TEXT,
        lease_token       INTEGER,
        lease_expires_at  INTEGER
      ) WITHOUT ROWID;
      INSERT INTO instances_rebuilt SELECT instance_id, latest_seq, definition_digest, status, process_id,
        definition_id, business_key, parent_id, call_node_id, due_at, root_id, lease_owner, lease_token,
        lease_expires_at FROM instances;
      DROP TABLE instances;
      ALTER TABLE instances_rebuilt RENAME TO instances;
      -- Its indexes as schemas 2, 5 and 6 left them (dropped with the table).
      CREATE INDEX instances_by_definition ON instances (definition_id, instance_id);
      CREATE INDEX instances_due ON instances (status, due_at, instance_id) WHERE due_at IS NOT NULL;
      CREATE INDEX instances_leased ON instances (instance_id) WHERE lease_owner IS NOT NULL;
      CREATE INDEX instances_by_parent ON instances (parent_id, instance_id) WHERE parent_id IS NOT NULL;
      CREATE INDEX instances_by_status ON instances (status, instance_id) WHERE status <> 'completed';
      CREATE INDEX instances_by_root ON instances (root_id, instance_id) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    description: 'the step log (history) apart from checkpoints, when instances ended, and the readers of the log',
    sql: `
      -- What each step did (PutCheckpoint.log), kept when its checkpoint is pruned. A rowid is a position of the
      -- log, taken over from the checkpoints: past every position handed out before, so one read earlier never
      -- names an entry, and never handed out twice (the floor, raised before a delete).
      CREATE TABLE log (
        instance_id TEXT    NOT NULL REFERENCES instances (instance_id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        entry       BLOB    NOT NULL
      );
      CREATE UNIQUE INDEX log_of_instance ON log (instance_id, seq);
      UPDATE sequences SET value = MAX(value, COALESCE((SELECT MAX(rowid) FROM checkpoints), 0))
        WHERE name = 'position_floor';
      -- Only ended instances have one; what expire finds them by, oldest end first.
      ALTER TABLE instances ADD COLUMN ended_at INTEGER;
      CREATE INDEX instances_ended ON instances (ended_at, instance_id) WHERE ended_at IS NOT NULL;
      -- position: the log entry (rowid) the reader is at; NULL while it has read nothing.
      CREATE TABLE readers (
        name     TEXT    NOT NULL PRIMARY KEY,
        position INTEGER,
        cursor   TEXT
      ) WITHOUT ROWID;
    `,
  },
  {
    description: "instance serials: the store's number for each instance, never handed out twice",
    sql: `
      -- InstanceSummary.serial. The instances stored before are numbered in id order; a new one takes the next
      -- number as its row goes in (put or copy), and the trigger moves the sequence on, never back (a delete
      -- leaves it where it is).
      ALTER TABLE instances ADD COLUMN serial INTEGER;
      UPDATE instances SET serial = numbered.n
        FROM (SELECT instance_id, ROW_NUMBER() OVER (ORDER BY instance_id) AS n FROM instances) AS numbered
        WHERE instances.instance_id = numbered.instance_id;
      CREATE UNIQUE INDEX instances_by_serial ON instances (serial);
      INSERT INTO sequences (name, value) VALUES ('instance_serial', (SELECT COALESCE(MAX(serial), 0) FROM instances));
      CREATE TRIGGER instances_serial AFTER INSERT ON instances BEGIN
        UPDATE sequences SET value = NEW.serial WHERE name = 'instance_serial';
      END;
    `,
  },
  {
    description: 'the job queue: jobs waiting for workers outside the engine, and their locks',
    sql: `
      -- JobOffer and its lock (worker, deadline; both NULL while none is held). rank: its place in the queue of its
      -- type, from the job_rank sequence, taken anew when another attempt is offered.
      CREATE TABLE jobs (
        instance_id TEXT    NOT NULL REFERENCES instances (instance_id) ON DELETE CASCADE,
        job_id      TEXT    NOT NULL,
        type        TEXT    NOT NULL,
        attempt     INTEGER NOT NULL,
        not_before  INTEGER,
        rank        INTEGER NOT NULL,
        worker      TEXT,
        deadline    INTEGER,
        PRIMARY KEY (instance_id, job_id)
      ) WITHOUT ROWID;
      CREATE INDEX jobs_by_type ON jobs (type, rank);
      INSERT INTO sequences (name, value) VALUES ('job_rank', 0);
    `,
  },
  {
    description: 'search rows: what projections of the event log keep searchable, and how far each has read',
    sql: `
      -- SearchRow: fields is its JSON object. The indexes serve what searches filter by most: a state, the process
      -- instance a row belongs to, a variable's name and value.
      CREATE TABLE search_rows (
        kind   TEXT NOT NULL,
        key    TEXT NOT NULL,
        fields TEXT NOT NULL,
        PRIMARY KEY (kind, key)
      ) WITHOUT ROWID;
      CREATE INDEX search_rows_by_state ON search_rows (kind, ${typedState});
      CREATE INDEX search_rows_by_instance ON search_rows (kind, ${typedInstance});
      CREATE INDEX search_rows_by_name ON search_rows (kind, ${typedName}, ${typedValue});
      CREATE TABLE projections (
        projection TEXT NOT NULL PRIMARY KEY,
        position   TEXT NOT NULL
      ) WITHOUT ROWID;
      -- The planner's statistics of the rows, written once and never measured: without any it scans a kind's rows
      -- rather than seek a variable by name and value, and measured on a young store they would say every kind is
      -- tiny. These say a kind holds many rows, a state a fifth of them, an instance or a name and value few.
      ANALYZE search_rows;
      DELETE FROM sqlite_stat1 WHERE tbl = 'search_rows';
      INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
        ('search_rows', 'search_rows', '1000000 100000 1'),
        ('search_rows', 'search_rows_by_state', '1000000 100000 20000'),
        ('search_rows', 'search_rows_by_instance', '1000000 100000 20'),
        ('search_rows', 'search_rows_by_name', '1000000 100000 1000 2');
      -- Read them back now, for the connection that migrates (the others read them as they open).
      ANALYZE sqlite_schema;
    `,
  },
  {
    description: "a step's checkpoint and log entry in one row; serials past the newest, with no sequence written",
    rebuildsTables: true,
    sql: `
      -- A put wrote a checkpoint (its row and its key's b-tree) and a log entry (its row and its (instance, seq)
      -- index): four b-trees, each a page to sync. One row per step now holds both, under one (instance, seq) index.
      -- The checkpoint columns are NULL once it is pruned; entry is NULL when its put filed none (no log entry).
      -- The rowid is the log position, as the log's was: never handed out twice (position_floor).
      CREATE TABLE steps (
        instance_id       TEXT    NOT NULL REFERENCES instances (instance_id) ON DELETE CASCADE,
        seq               INTEGER NOT NULL,
        parent_seq        INTEGER,
        schema            INTEGER,
        definition_digest TEXT,
        digest            TEXT,
        document          BLOB,
        entry             BLOB
      );
      INSERT INTO steps (rowid, instance_id, seq, parent_seq, schema, definition_digest, digest, document, entry)
        SELECT l.rowid, l.instance_id, l.seq, c.parent_seq, c.schema, c.definition_digest, c.digest, c.document, l.entry
        FROM log l LEFT JOIN checkpoints c ON c.instance_id = l.instance_id AND c.seq = l.seq;
      UPDATE sequences SET value = MAX(value, COALESCE((SELECT MAX(rowid) FROM log), 0)) WHERE name = 'position_floor';
      -- Checkpoints whose put filed no entry: rowids past every position handed out (they are no log entries).
      INSERT INTO steps (rowid, instance_id, seq, parent_seq, schema, definition_digest, digest, document, entry)
        SELECT (SELECT value FROM sequences WHERE name = 'position_floor') + ROW_NUMBER() OVER (ORDER BY c.rowid),
          c.instance_id, c.seq, c.parent_seq, c.schema, c.definition_digest, c.digest, c.document, NULL
        FROM checkpoints c
        WHERE NOT EXISTS (SELECT 1 FROM log l WHERE l.instance_id = c.instance_id AND l.seq = c.seq);
      CREATE UNIQUE INDEX steps_of_instance ON steps (instance_id, seq);
      -- The journal now references the steps; same columns, same order.
      CREATE TABLE writes_rebuilt (
        instance_id TEXT    NOT NULL,
        seq         INTEGER NOT NULL,
        task_id     TEXT    NOT NULL,
        idx         INTEGER NOT NULL,
        ord         INTEGER NOT NULL,
        value       BLOB    NOT NULL,
        PRIMARY KEY (instance_id, seq, task_id, idx),
        FOREIGN KEY (instance_id, seq) REFERENCES steps (instance_id, seq) ON DELETE CASCADE
      );
      INSERT INTO writes_rebuilt SELECT instance_id, seq, task_id, idx, ord, value FROM writes;
      DROP TABLE writes;
      ALTER TABLE writes_rebuilt RENAME TO writes;
      CREATE UNIQUE INDEX writes_in_order ON writes (instance_id, seq, ord);
      DROP TABLE log;
      DROP TABLE checkpoints;
      -- The oldest seq whose checkpoint may be stored (NULL: none was pruned): the rows below it hold log entries
      -- only, so history and prune start their range here instead of walking them.
      ALTER TABLE instances ADD COLUMN kept_from INTEGER;
      UPDATE instances SET kept_from =
          (SELECT MIN(s.seq) FROM steps s WHERE s.instance_id = instances.instance_id AND s.document IS NOT NULL)
        WHERE EXISTS (SELECT 1 FROM steps s WHERE s.instance_id = instances.instance_id AND s.document IS NULL);
      -- A new instance's serial is one past the newest and past this floor, which a delete raises first: the
      -- trigger wrote the sequences row (a page) with every new instance.
      DROP TRIGGER instances_serial;
    `,
  },
];

/** The schema version this build creates and understands: the number of migrations. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Read `PRAGMA user_version`, the number of migrations applied to the database. */
export function schemaVersion(db: SqliteDatabase): number {
  return Number(db.pragma('user_version', { simple: true }));
}

/** Refuse a database written by a newer build ({@link assertKnownStoreSchema}), naming its file. */
export function assertKnownSchema(path: string, version: number): void {
  assertKnownStoreSchema(`the SQLite database ${path}`, version, '@thresher/store-sqlite', SCHEMA_VERSION);
}

/**
 * Bring the database up to {@link SCHEMA_VERSION}. Runs in one IMMEDIATE transaction that re-reads the
 * version under the write lock, so two processes opening a fresh file at once apply each step once; a
 * failed step leaves the database at the version it had.
 */
export function migrate(db: SqliteDatabase, path: string): void {
  const current = schemaVersion(db);
  assertKnownSchema(path, current);
  // Up to date: don't take the write lock, which another process may be holding for a while.
  if (current === SCHEMA_VERSION) return;
  // Switched outside the transaction: SQLite ignores `foreign_keys` inside one.
  const keysOff = MIGRATIONS.slice(current).some((migration) => migration.rebuildsTables);
  const keys = Number(db.pragma('foreign_keys', { simple: true }));
  if (keysOff) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      const version = schemaVersion(db);
      assertKnownSchema(path, version);
      // A file written with foreign keys off may hold dangling rows already: the steps must only add none.
      const brokenBefore = keysOff ? brokenReferences(db) : 0;
      for (let next = version; next < SCHEMA_VERSION; next++) {
        db.exec(MIGRATIONS[next]!.sql);
        // user_version lives in the database header, so it commits or rolls back with the step.
        db.pragma(`user_version = ${next + 1}`);
      }
      if (keysOff && brokenReferences(db) > brokenBefore) {
        throw new CheckpointError(
          CheckpointErrorCode.Store,
          `upgrading the SQLite database ${path} would leave rows referencing no row of a rebuilt table; nothing was changed`,
        );
      }
    }).immediate();
  } finally {
    if (keysOff) db.pragma(`foreign_keys = ${keys}`);
  }
}

/** How many rows reference a row that is not there (`PRAGMA foreign_key_check`). */
function brokenReferences(db: SqliteDatabase): number {
  return (db.pragma('foreign_key_check') as unknown[]).length;
}
