import { CheckpointError, CheckpointErrorCode } from '@thresher/checkpoint';
import { assertKnownStoreSchema, type SchemaMigration } from '@thresher/checkpoint/store-kit';
import type { PgClientLike, PgPoolLike } from './driver.js';
import { PUT_CHECKPOINT_FUNCTION } from './put-function-v5.js';
import { PUT_CHECKPOINT_SEEN_FUNCTION } from './put-function-v7.js';
import { PUT_CHECKPOINT_PLANNED_FUNCTIONS } from './put-function-v8.js';
import { PUT_CHECKPOINT_LOGGED_FUNCTIONS } from './put-function-v11.js';
import { RELEASE_LEASES_FUNCTION } from './release-function-v10.js';
import { typedField } from './search-rows.js';

/**
 * One schema step. Its position in {@link MIGRATIONS} (1-based) is the schema version it produces; its
 * `description` is recorded with it in `schema_migrations`, and its `sql` writes `{schema}` for the quoted
 * schema name.
 */
export type Migration = SchemaMigration;

/**
 * The tables, as an append-only list: never edit or reorder a shipped entry, only add one at the end.
 * Each schema records the steps applied to it in its `schema_migrations` table, one row per version.
 *
 * Ids are `COLLATE "C"`: byte order of UTF-8, i.e. Unicode code point order, the order every store pages
 * `instances` in, whatever the database's default collation is.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    description: 'instances, checkpoints, writes and deployments',
    sql: `
      CREATE TABLE {schema}.instances (
        instance_id       TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        latest_seq        BIGINT  NOT NULL,
        definition_digest TEXT    NOT NULL,
        status            TEXT COLLATE "C" NOT NULL,
        process_id        TEXT    NOT NULL,
        definition_id     TEXT COLLATE "C" NOT NULL,
        business_key      TEXT,
        parent_id         TEXT COLLATE "C",
        call_node_id      TEXT
      );
      CREATE INDEX instances_by_status ON {schema}.instances (status, instance_id);
      CREATE INDEX instances_by_definition ON {schema}.instances (definition_id, instance_id);
      CREATE INDEX instances_by_parent ON {schema}.instances (parent_id, instance_id);

      CREATE TABLE {schema}.checkpoints (
        instance_id       TEXT COLLATE "C" NOT NULL REFERENCES {schema}.instances (instance_id) ON DELETE CASCADE,
        seq               BIGINT  NOT NULL,
        parent_seq        BIGINT,
        schema            INTEGER NOT NULL,
        definition_digest TEXT    NOT NULL,
        digest            TEXT    NOT NULL,
        document          BYTEA   NOT NULL,
        PRIMARY KEY (instance_id, seq)
      );

      CREATE TABLE {schema}.writes (
        instance_id TEXT COLLATE "C" NOT NULL,
        seq         BIGINT NOT NULL,
        task_id     TEXT COLLATE "C" NOT NULL,
        idx         BIGINT NOT NULL,
        ord         BIGINT NOT NULL,
        value       BYTEA  NOT NULL,
        PRIMARY KEY (instance_id, seq, task_id, idx),
        FOREIGN KEY (instance_id, seq) REFERENCES {schema}.checkpoints (instance_id, seq) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX writes_in_order ON {schema}.writes (instance_id, seq, ord);

      CREATE TABLE {schema}.deployments (
        ord           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        digest        TEXT COLLATE "C" NOT NULL UNIQUE,
        definition_id TEXT COLLATE "C" NOT NULL,
        version       INTEGER NOT NULL,
        xml           TEXT    NOT NULL,
        deployed_at   BIGINT  NOT NULL,
        UNIQUE (definition_id, version)
      );
    `,
  },
  {
    description: 'due timers, message subscriptions, leases and the store-wide fencing token sequence',
    sql: `
      -- double precision: epoch ms exactly as the caller's number, fractions included (float8 prints round-trip).
      ALTER TABLE {schema}.instances ADD COLUMN due_at DOUBLE PRECISION;
      -- Partial: only running instances with a timer are ever due, and the query names both conditions.
      CREATE INDEX instances_due ON {schema}.instances (due_at, instance_id)
        WHERE status = 'running' AND due_at IS NOT NULL;

      CREATE TABLE {schema}.subscriptions (
        instance_id TEXT COLLATE "C" NOT NULL REFERENCES {schema}.instances (instance_id) ON DELETE CASCADE,
        ord         INTEGER NOT NULL,
        name        TEXT COLLATE "C" NOT NULL,
        key         TEXT COLLATE "C",
        PRIMARY KEY (instance_id, ord)
      );
      CREATE INDEX subscriptions_by_message ON {schema}.subscriptions (name, key, instance_id);

      -- The held lease lives on the instance row, the row every writer locks and claim locks with SKIP LOCKED;
      -- releasing sets it to NULL. Tokens come from the sequence, so they never repeat, deletes included.
      ALTER TABLE {schema}.instances
        ADD COLUMN lease_owner      TEXT,
        ADD COLUMN lease_token      BIGINT,
        ADD COLUMN lease_expires_at DOUBLE PRECISION,
        ADD CONSTRAINT instances_lease_whole CHECK (
          (lease_owner IS NULL) = (lease_token IS NULL) AND (lease_owner IS NULL) = (lease_expires_at IS NULL));
      CREATE SEQUENCE {schema}.lease_tokens AS BIGINT;
    `,
  },
  {
    description: 'messages buffered before their subscription',
    sql: `
      -- taker: the instance holding the message between takeMessage and deleteMessage; NULL while free.
      CREATE TABLE {schema}.messages (
        id              TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        name            TEXT COLLATE "C" NOT NULL,
        correlation_key TEXT COLLATE "C",
        variables       BYTEA            NOT NULL,
        published_at    DOUBLE PRECISION NOT NULL,
        expires_at      DOUBLE PRECISION NOT NULL,
        taker           TEXT COLLATE "C"
      );
      -- takeMessage's order: oldest first by published_at, ties by id ("C": code point order).
      CREATE INDEX messages_by_subscription ON {schema}.messages (name, correlation_key, published_at, id);
      CREATE INDEX messages_by_expiry ON {schema}.messages (expires_at);
    `,
  },
  {
    description: 'the root of every instance call tree, for instances({ rootId })',
    sql: `
      ALTER TABLE {schema}.instances ADD COLUMN root_id TEXT COLLATE "C";
      -- Existing rows: walk down from each root (an instance with no parent, or whose parent is not stored,
      -- whose root is then that parent's id), as put would have derived it.
      WITH RECURSIVE tree (instance_id, root_id) AS (
        SELECT i.instance_id, COALESCE(i.parent_id, i.instance_id) FROM {schema}.instances i
        WHERE i.parent_id IS NULL
          OR NOT EXISTS (SELECT 1 FROM {schema}.instances p WHERE p.instance_id = i.parent_id)
        UNION ALL
        SELECT c.instance_id, tree.root_id FROM {schema}.instances c JOIN tree ON c.parent_id = tree.instance_id
      )
      UPDATE {schema}.instances AS i SET root_id = tree.root_id FROM tree WHERE tree.instance_id = i.instance_id;
      -- A cycle of parent links (which no put makes) reaches no root: each of its instances roots itself.
      UPDATE {schema}.instances SET root_id = instance_id WHERE root_id IS NULL;
      ALTER TABLE {schema}.instances ALTER COLUMN root_id SET NOT NULL;
      CREATE INDEX instances_by_root ON {schema}.instances (root_id, instance_id);
    `,
  },
  {
    description: 'put_checkpoint: the common put in one statement',
    sql: PUT_CHECKPOINT_FUNCTION,
  },
  {
    description: 'completed instances out of the status index, roots out of the parent and root indexes',
    sql: `
      -- An instance's row changes its status when it ends, so that update writes a new entry into every
      -- index of the table: completed instances (most of a store, never written again) and roots (most
      -- instances) get none in these three. Queries for another status, or for a parent, imply the
      -- conditions; a tree is its root, found by its id, and the descendants the root index holds.
      DROP INDEX {schema}.instances_by_status;
      CREATE INDEX instances_by_status ON {schema}.instances (status, instance_id) WHERE status <> 'completed';
      DROP INDEX {schema}.instances_by_parent;
      CREATE INDEX instances_by_parent ON {schema}.instances (parent_id, instance_id) WHERE parent_id IS NOT NULL;
      DROP INDEX {schema}.instances_by_root;
      CREATE INDEX instances_by_root ON {schema}.instances (root_id, instance_id) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    description: 'put_checkpoint with the deployments a new instance was chosen among',
    sql: PUT_CHECKPOINT_SEEN_FUNCTION,
  },
  {
    description: 'put_checkpoint planned once per session, each signature a whole body',
    sql: PUT_CHECKPOINT_PLANNED_FUNCTIONS,
  },
  {
    description: "the checkpoint log's positions (history), and the lease owners' index",
    sql: `
      -- A position is (tx, position). A serial alone commits out of order across transactions; read only below
      -- the oldest transaction still running (pg_snapshot_xmin), (tx, position) order never gains a row behind
      -- a reader that already passed it.
      ALTER TABLE {schema}.checkpoints
        ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        ADD COLUMN position BIGSERIAL;
      CREATE INDEX checkpoints_log ON {schema}.checkpoints (tx, position);
      -- Held leases only: what leaseOwners reads (the engines a recovery checks for gone ones).
      CREATE INDEX instances_lease_owners ON {schema}.instances (lease_owner) WHERE lease_owner IS NOT NULL;
    `,
  },
  {
    description: 'release_leases: a lone release in one statement, committed without waiting for the flush',
    sql: RELEASE_LEASES_FUNCTION,
  },
  {
    description: 'the step log (history) apart from checkpoints, when instances ended, the readers of the log',
    sql: `
      -- What each step did (PutCheckpoint.log), kept when its checkpoint is pruned. Positions as the checkpoints
      -- had them, (tx, position): a new transaction's id is past every older one, so a position read before
      -- the upgrade comes before every entry.
      CREATE TABLE {schema}.log (
        instance_id TEXT COLLATE "C" NOT NULL REFERENCES {schema}.instances (instance_id) ON DELETE CASCADE,
        seq         BIGINT NOT NULL,
        tx          xid8   NOT NULL DEFAULT pg_current_xact_id(),
        position    BIGSERIAL,
        entry       BYTEA  NOT NULL,
        PRIMARY KEY (instance_id, seq)
      );
      CREATE INDEX log_in_order ON {schema}.log (tx, position);
      -- The checkpoints are no longer the log: a put writes one index fewer.
      DROP INDEX {schema}.checkpoints_log;
      ALTER TABLE {schema}.checkpoints DROP COLUMN tx, DROP COLUMN position;
      -- Only ended instances have one; what expire finds them by, oldest end first.
      ALTER TABLE {schema}.instances ADD COLUMN ended_at DOUBLE PRECISION;
      CREATE INDEX instances_ended ON {schema}.instances (ended_at, instance_id) WHERE ended_at IS NOT NULL;
      -- (tx, position): the log entry the reader is at; NULLs while it has read nothing.
      CREATE TABLE {schema}.readers (
        name     TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        tx       xid8,
        position BIGINT,
        cursor   TEXT
      );
      ${PUT_CHECKPOINT_LOGGED_FUNCTIONS}
    `,
  },
  {
    description: "instance serials: the store's number for each instance, never handed out twice",
    sql: `
      -- InstanceSummary.serial. The instances stored before are numbered in id order; a new row takes the next
      -- value of the sequence as its default (put, the batch put, put_checkpoint and copy alike), and a sequence
      -- never goes back (a delete leaves it where it is; a rolled-back insert leaves a gap).
      CREATE SEQUENCE {schema}.instance_serials;
      ALTER TABLE {schema}.instances ADD COLUMN serial BIGINT;
      UPDATE {schema}.instances i SET serial = numbered.n
        FROM (SELECT instance_id, row_number() OVER (ORDER BY instance_id) AS n FROM {schema}.instances) AS numbered
        WHERE i.instance_id = numbered.instance_id;
      SELECT setval('{schema}.instance_serials', COALESCE(MAX(serial), 1), MAX(serial) IS NOT NULL)
        FROM {schema}.instances;
      ALTER TABLE {schema}.instances ALTER COLUMN serial SET DEFAULT nextval('{schema}.instance_serials'),
        ALTER COLUMN serial SET NOT NULL;
      ALTER SEQUENCE {schema}.instance_serials OWNED BY {schema}.instances.serial;
      CREATE UNIQUE INDEX instances_by_serial ON {schema}.instances (serial);
    `,
  },
  {
    description: 'the job queue: jobs waiting for workers outside the engine, and their locks',
    sql: `
      -- JobOffer and its lock (worker, deadline; both NULL while none is held). rank: its place in the queue of its
      -- type, from job_ranks, taken anew when another attempt is offered.
      CREATE SEQUENCE {schema}.job_ranks;
      CREATE TABLE {schema}.jobs (
        instance_id TEXT   NOT NULL REFERENCES {schema}.instances (instance_id) ON DELETE CASCADE,
        job_id      TEXT   NOT NULL,
        type        TEXT   NOT NULL,
        attempt     BIGINT NOT NULL,
        not_before  BIGINT,
        rank        BIGINT NOT NULL,
        worker      TEXT,
        deadline    BIGINT,
        PRIMARY KEY (instance_id, job_id)
      );
      CREATE INDEX jobs_by_type ON {schema}.jobs (type, rank);
    `,
  },
  {
    description: 'search rows: what projections of the event log keep searchable, and how far each has read',
    sql: `
      -- SearchRow: fields is its JSON object. The indexes serve what searches filter by most: a state, the process
      -- instance a row belongs to, a variable's name (expressions as search-rows.ts's typedField writes them).
      CREATE TABLE {schema}.search_rows (
        kind   TEXT COLLATE "C" NOT NULL,
        key    TEXT COLLATE "C" NOT NULL,
        fields JSONB NOT NULL,
        PRIMARY KEY (kind, key)
      );
      CREATE INDEX search_rows_by_state ON {schema}.search_rows (kind, (${typedField('state', 'text')}));
      CREATE INDEX search_rows_by_instance ON {schema}.search_rows (kind, (${typedField('processInstanceKey', 'text')}));
      CREATE INDEX search_rows_by_name ON {schema}.search_rows (kind, (${typedField('name', 'text')}));
      CREATE TABLE {schema}.projections (
        projection TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        position   TEXT NOT NULL
      );
    `,
  },
];

/** The schema version this build creates and understands: the number of migrations. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The default PostgreSQL schema (namespace) the tables live in. */
export const DEFAULT_SCHEMA = 'thresher';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The schema name as an SQL identifier. Only plain names are accepted, so the identifier can be spliced
 * into statements (identifiers cannot be bound as parameters); it is quoted, so its case is kept.
 */
export function quoteSchema(schema: string): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `the PostgreSQL schema name ${JSON.stringify(schema)} is not usable; use letters, digits and _ (at most 63, not starting with a digit)`,
    );
  }
  return `"${schema}"`;
}

/**
 * The schema version recorded in `schema`, 0 when it has no `schema_migrations` table (a fresh schema).
 * Reads without a lock: a concurrent migration is either seen whole or not at all.
 */
export async function schemaVersion(db: PgPoolLike | PgClientLike, schema: string): Promise<number> {
  // A query of the catalog, not to_regclass(): that consults the backend's catalog cache, which may not yet
  // have heard of a table another migrator just committed; this reads with the statement's snapshot.
  const { rows } = await db.query<{ present: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'schema_migrations') AS present`,
    [schema],
  );
  if (rows[0]?.present !== true) return 0;
  const version = await db.query<{ version: number | string | null }>(
    `SELECT MAX(version) AS version FROM ${quoteSchema(schema)}.schema_migrations`,
    [],
  );
  return Number(version.rows[0]?.version ?? 0);
}

/**
 * The advisory lock key text of a schema's migrations. `migrate` holds it exclusively; every write holds it
 * shared (`schema-fence.ts`), so a running process never writes while a newer build migrates. Keep it in
 * every later build.
 */
export function migrationLockKey(schema: string): string {
  return `thresher.migrate:${schema}`;
}

/** Refuse a schema written by a newer build ({@link assertKnownStoreSchema}), naming it. */
export function assertKnownSchema(schema: string, version: number): void {
  assertKnownStoreSchema(`the PostgreSQL schema "${schema}"`, version, '@thresher/store-postgres', SCHEMA_VERSION);
}

/**
 * Bring `schema` up to {@link SCHEMA_VERSION}. Runs in one transaction holding a transaction-scoped advisory
 * lock keyed by the schema name, and re-reads the version under it, so processes opening a fresh database at
 * once apply each step exactly once (the others wait, then find nothing to do). A failed step rolls back
 * whole: the schema keeps the version it had. A newer schema is refused before anything is written.
 */
export async function migrate(pool: PgPoolLike, schema: string): Promise<void> {
  const quoted = quoteSchema(schema);
  const current = await schemaVersion(pool, schema);
  assertKnownSchema(schema, current);
  // Up to date: take no lock, which a process migrating another build's way may hold for a while.
  if (current === SCHEMA_VERSION) return;
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [migrationLockKey(schema)]);
    const version = await schemaVersion(client, schema);
    assertKnownSchema(schema, version);
    if (version === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
        version     INTEGER     NOT NULL PRIMARY KEY,
        description TEXT        NOT NULL,
        applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    }
    for (let next = version; next < SCHEMA_VERSION; next++) {
      const migration = MIGRATIONS[next]!;
      await client.query(migration.sql.replaceAll('{schema}', quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version, description) VALUES ($1, $2)`, [
        next + 1,
        migration.description,
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // A connection whose rollback may not have happened is not given to anyone else.
    client.release(failure instanceof Error ? failure : undefined);
  }
}
