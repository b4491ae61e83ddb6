/**
 * The SQL text of the SQLite repository: the fixed statements it prepares once per connection ({@link SQL},
 * named as their PostgreSQL counterparts where the operation is the same) and the `instances` query built
 * per filter shape. Tables and columns are created by `migrations.ts`; keep the two in step. What the rows
 * they return look like is `rows.ts`.
 */
import { CHECKPOINT_COLUMNS, checkpointColumnsOf } from '@thresher/checkpoint/store-kit';
import type { SqliteDatabase, SqliteStatement } from './driver.js';

const CHECKPOINT_COLUMNS_OF_C = checkpointColumnsOf('c');

/** The next position (rowid) in the log: past the newest step and past every deleted one. */
const NEXT_POSITION = `(SELECT MAX(COALESCE((SELECT MAX(rowid) FROM steps), 0), value) + 1
      FROM sequences WHERE name = 'position_floor')`;

/** The log entry filed with step `c`'s checkpoint, as its row's `log` column (NULL when its put filed none). */
const LOG_OF_C = 'c.entry AS log';
/** A step whose checkpoint is stored (not pruned). */
const STORED = 'document IS NOT NULL';

/** The checkpoint `picked` selects, with its log entry, joined with its journal entries in filing order. */
function checkpointWithWrites(picked: string): string {
  return `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${LOG_OF_C}, w.task_id, w.idx, w.value FROM (${picked}) AS c
    LEFT JOIN writes w ON w.instance_id = c.instance_id AND w.seq = c.seq ORDER BY w.ord`;
}
const INSTANCE_COLUMNS =
  'instance_id, latest_seq, definition_digest, status, process_id, definition_id, business_key, parent_id, ' +
  'call_node_id, due_at, root_id, ended_at';
/** What an instance row is read with: its columns and its serial. */
const INSTANCE_READ = `${INSTANCE_COLUMNS}, serial`;
/**
 * A new instance's serial: one past the newest (through `instances_by_serial`) and past the floor a delete of
 * the newest raised, so no number is handed out twice and no put writes the sequences row.
 */
const NEXT_SERIAL = `(SELECT MAX(COALESCE((SELECT MAX(serial) FROM instances), 0), value) + 1
      FROM sequences WHERE name = 'instance_serial')`;
/**
 * The root of an instance's call tree from its parent's row (`rootIdOf` of `@thresher/checkpoint/store-kit`): its own id
 * for a root, else the parent's root_id, else (the parent is not stored) the parent's id.
 */
const DERIVED_ROOT_ID =
  'COALESCE((SELECT p.root_id FROM instances p WHERE p.instance_id = @parent_id), @parent_id, @instance_id)';
/** The instances under a root, through `instances_by_root` (schema 6: children only, so named here). */
const DESCENDANTS = 'SELECT instance_id FROM instances WHERE root_id = @rootId AND parent_id IS NOT NULL';
/** The condition of `instances_by_status` (schema 6), named by every query it serves so that SQLite uses it. */
const LIVE = "status <> 'completed'";
const DEPLOYMENT_COLUMNS = 'definition_id, digest, version, xml, deployed_at';
const MESSAGE_COLUMNS = 'id, name, correlation_key, variables, published_at, expires_at';

/** Every fixed statement, by name. Named parameters (`@name`) bind from objects. */
export const SQL = {
  selectDocument: `SELECT document FROM steps WHERE instance_id = ? AND seq = ? AND ${STORED}`,
  selectLatestSeq: 'SELECT latest_seq FROM instances WHERE instance_id = ?',
  // What put decides on, in one read: the seq, the indexed columns it may change, and the held lease.
  selectPutState: `SELECT ${INSTANCE_READ}, lease_owner, lease_token, lease_expires_at
    FROM instances WHERE instance_id = ?`,
  // A new instance, holding the lease its first put claims (or none: the lease columns bound as NULL).
  insertInstance: `INSERT INTO instances (${INSTANCE_COLUMNS}, lease_owner, lease_token, lease_expires_at, serial)
    VALUES (@instance_id, @latest_seq, @definition_digest, @status, @process_id, @definition_id, @business_key,
      @parent_id, @call_node_id, @due_at, ${DERIVED_ROOT_ID}, @ended_at, @lease_owner, @lease_token,
      @lease_expires_at, ${NEXT_SERIAL})`,
  insertSubscription: 'INSERT INTO subscriptions (instance_id, ord, name, key) VALUES (?, ?, ?, ?)',
  // The subscriptions of a page of summaries, by the page's ids as a JSON array (ids never hold lone surrogates).
  selectSubscriptionsOf: `SELECT instance_id, name, key FROM subscriptions
    WHERE instance_id IN (SELECT value FROM json_each(?)) ORDER BY instance_id, ord`,
  // The parent link rule: whether a named parent is stored.
  instanceExists: 'SELECT 1 AS present FROM instances WHERE instance_id = ?',
  // A step: its checkpoint and the log entry its put filed (entry NULL: none). The rowid is the entry's position
  // in the log: one past the newest, or past the floor a delete of the newest left (SQLite would hand a deleted
  // newest rowid out again, and a reader that saw it would skip one).
  insertStep: `INSERT INTO steps (rowid, ${CHECKPOINT_COLUMNS}, entry)
    VALUES (${NEXT_POSITION}, @instance_id, @seq, @parent_seq, @schema, @definition_digest, @digest, @document,
      @entry)`,
  // A rewrite's entry, unless the checkpoint has one: the step moves to the next position, past every one a
  // reader may have read.
  insertLogIfNone: `UPDATE steps SET rowid = ${NEXT_POSITION}, entry = @entry
    WHERE instance_id = @instance_id AND seq = @seq AND entry IS NULL`,

  selectDigestAndDocument: `SELECT digest, document FROM steps WHERE instance_id = ? AND seq = ? AND ${STORED}`,
  // Only what a schema migration changes: seq, parent_seq, definition_digest, writes and the index stay.
  rewriteCheckpoint: `UPDATE steps SET schema = @schema, digest = @digest, document = @document
    WHERE instance_id = @instance_id AND seq = @seq AND ${STORED}`,

  // What a repeated (task_id, idx) is compared with: a repeat must be the same bytes.
  selectWrite: 'SELECT value FROM writes WHERE instance_id = ? AND seq = ? AND task_id = ? AND idx = ?',
  selectMaxWriteOrd: 'SELECT MAX(ord) AS ord FROM writes WHERE instance_id = ? AND seq = ?',
  // Repeats are sorted out before (planWrites); DO NOTHING, never REPLACE, so a filed entry is never rewritten.
  insertWrite: `INSERT INTO writes (instance_id, seq, task_id, idx, ord, value) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (instance_id, seq, task_id, idx) DO NOTHING`,

  // A checkpoint and its journal in one statement, so one snapshot serves both without a transaction around
  // two: a row per entry in filing order, or one row with NULL entry columns when it has none.
  selectLatest: checkpointWithWrites(
    `SELECT ${CHECKPOINT_COLUMNS}, entry FROM steps WHERE instance_id = ? AND ${STORED} ORDER BY seq DESC LIMIT 1`,
  ),
  selectAtSeq: checkpointWithWrites(
    `SELECT ${CHECKPOINT_COLUMNS}, entry FROM steps WHERE instance_id = ? AND seq = ? AND ${STORED}`,
  ),
  // The latest checkpoint of each id of @ids (a JSON array of distinct ids) with its journal, each row with its
  // id's place (at) and its entry's (ord). No ORDER BY: SQLite would sort every row, documents and all, in a
  // temporary b-tree (~30% of the read), while its plan already yields them in that order; `inIdsOrder` checks.
  selectLatestOfMany: `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${LOG_OF_C}, w.task_id, w.idx, w.value, j.key AS at, w.ord
    FROM json_each(@ids) AS j
    JOIN steps c ON c.instance_id = j.value
      AND c.seq = (SELECT MAX(seq) FROM steps m WHERE m.instance_id = j.value) AND c.${STORED}
    LEFT JOIN writes w ON w.instance_id = c.instance_id AND w.seq = c.seq`,
  // A page of history between exclusive bounds; an absent bound is bound as -Infinity or Infinity, which every
  // integer seq passes (a finite default would leave out the seq it names). LIMIT -1 means no limit in SQLite.
  // @after is past the instance's kept_from: the steps below it have no checkpoint.
  selectHistory: `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${LOG_OF_C} FROM steps c
    WHERE c.instance_id = @instance_id AND c.seq > @after AND c.seq < @before AND c.${STORED}
    ORDER BY c.seq LIMIT @limit`,
  selectHistoryDesc: `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${LOG_OF_C} FROM steps c
    WHERE c.instance_id = @instance_id AND c.seq > @after AND c.seq < @before AND c.${STORED}
    ORDER BY c.seq DESC LIMIT @limit`,
  selectKeptFrom: 'SELECT kept_from FROM instances WHERE instance_id = ?',
  selectWritesBetween: `SELECT seq, task_id, idx, value FROM writes
    WHERE instance_id = ? AND seq >= ? AND seq <= ? ORDER BY seq, ord`,

  // Through instances_leased: held leases only.
  selectLeaseOwners: 'SELECT DISTINCT lease_owner FROM instances WHERE lease_owner IS NOT NULL ORDER BY lease_owner',
  selectLease: `SELECT lease_owner, lease_token, lease_expires_at FROM instances
    WHERE instance_id = ? AND lease_owner IS NOT NULL`,
  // Takes the next ? tokens; returns the last of them.
  takeLeaseTokens: "UPDATE sequences SET value = value + ? WHERE name = 'lease_token' RETURNING value",
  setLease: `UPDATE instances SET lease_owner = @owner, lease_token = @token, lease_expires_at = @expires_at
    WHERE instance_id = @instance_id`,
  // A claim's leases in one statement: the ids of @ids (a JSON array) get tokens @first, @first + 1, … in order.
  setLeases: `UPDATE instances SET lease_owner = @owner, lease_token = @first + j.key, lease_expires_at = @expires_at
    FROM json_each(@ids) AS j WHERE instances.instance_id = j.value`,
  renewLease: 'UPDATE instances SET lease_expires_at = ? WHERE instance_id = ? AND lease_owner = ? AND lease_token = ?',
  releaseLease: `UPDATE instances SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
    WHERE instance_id = ? AND lease_owner = ? AND lease_token = ?`,
  // Running instances with no lease, a lapsed one, or one an owner named in takeOver holds, in id order.
  selectClaimable: `SELECT instance_id, lease_owner FROM instances
    WHERE status = 'running' AND ${LIVE}
      AND (lease_owner IS NULL OR lease_expires_at <= @now OR lease_owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY instance_id LIMIT @limit`,
  // Work a holder left behind: held leases only (through instances_leased, not every running instance),
  // ended instances included (a lease left on one marks deliveries its end still owes).
  selectLapsed: `SELECT instance_id, lease_owner FROM instances
    WHERE lease_owner IS NOT NULL
      AND (lease_expires_at <= @now OR lease_owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY instance_id LIMIT @limit`,
  selectLapsedAmong: `SELECT instance_id, lease_owner FROM instances
    WHERE instance_id IN (SELECT value FROM json_each(@ids)) AND lease_owner IS NOT NULL
      AND (lease_expires_at <= @now OR lease_owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY instance_id LIMIT @limit`,
  selectClaimableAmong: `SELECT instance_id, lease_owner FROM instances
    WHERE instance_id IN (SELECT value FROM json_each(@ids))
      AND status = 'running' AND ${LIVE}
      AND (lease_owner IS NULL OR lease_expires_at <= @now OR lease_owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY instance_id LIMIT @limit`,

  // Names instances_due's condition (due_at IS NOT NULL), so the partial index serves it, in order.
  selectDueTimers: `SELECT instance_id, due_at FROM instances
    WHERE status = 'running' AND due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, instance_id LIMIT ?`,
  selectSubscribers: `SELECT DISTINCT s.instance_id FROM subscriptions s JOIN instances i ON i.instance_id = s.instance_id
    WHERE s.name = ? AND s.key IS ? AND i.status = 'running' ORDER BY s.instance_id`,

  // OR IGNORE on the primary key only: putting a stored id again changes nothing.
  insertMessage: `INSERT INTO messages (id, name, correlation_key, variables, published_at, expires_at, taker)
    VALUES (@id, @name, @correlation_key, @variables, @published_at, @expires_at, NULL)
    ON CONFLICT (id) DO NOTHING`,
  // A message the taker already holds comes back first, expired or not; then the oldest free unexpired one.
  // @names is a JSON array: any number of names in one statement.
  selectHeldMessage: `SELECT ${MESSAGE_COLUMNS} FROM messages
    WHERE name IN (SELECT value FROM json_each(@names)) AND correlation_key IS @key AND taker = @taker
    ORDER BY published_at, id LIMIT 1`,
  selectFreeMessage: `SELECT ${MESSAGE_COLUMNS} FROM messages
    WHERE name IN (SELECT value FROM json_each(@names)) AND correlation_key IS @key AND taker IS NULL
      AND expires_at > @now
    ORDER BY published_at, id LIMIT 1`,
  holdMessage: 'UPDATE messages SET taker = ? WHERE id = ?',
  deleteMessage: 'DELETE FROM messages WHERE id = ?',
  expireMessages: 'DELETE FROM messages WHERE expires_at <= ?',

  selectJobAttempt: 'SELECT attempt FROM jobs WHERE instance_id = ? AND job_id = ?',
  selectInstanceExists: 'SELECT 1 AS found FROM instances WHERE instance_id = ?',
  moveJobNotBefore: 'UPDATE jobs SET not_before = ? WHERE instance_id = ? AND job_id = ?',
  takeJobRank: "UPDATE sequences SET value = value + 1 WHERE name = 'job_rank' RETURNING value",
  // A new attempt replaces the row whole: unlocked, at the rank just taken.
  replaceJob: `INSERT OR REPLACE INTO jobs (instance_id, job_id, type, attempt, not_before, rank, worker, deadline)
    VALUES (@instance_id, @job_id, @type, @attempt, @not_before, @rank, NULL, NULL)`,
  deleteJob: 'DELETE FROM jobs WHERE instance_id = ? AND job_id = ?',
  // Under the write lock (BEGIN IMMEDIATE): no other connection locks the same rows meanwhile.
  lockJobs: `UPDATE jobs SET worker = @worker, deadline = @deadline
    WHERE (instance_id, job_id) IN (SELECT instance_id, job_id FROM jobs
      WHERE type = @type AND (not_before IS NULL OR not_before <= @now) AND (deadline IS NULL OR deadline <= @now)
      ORDER BY rank LIMIT @limit)
    RETURNING instance_id, job_id, type, attempt, worker, deadline, rank`,
  relockJob: `UPDATE jobs SET deadline = @deadline
    WHERE instance_id = @instance_id AND job_id = @job_id AND attempt = @attempt AND deadline > @now
    RETURNING instance_id, job_id, type, attempt, worker, deadline`,
  selectJobLock: `SELECT instance_id, job_id, type, attempt, worker, deadline FROM jobs
    WHERE instance_id = ? AND job_id = ? AND worker IS NOT NULL`,
  deleteJobs: 'DELETE FROM jobs WHERE instance_id = ?',

  // The copy keeps the source's parent, so its root is derived as a put's would be: a copied root roots itself.
  copyInstance: `INSERT INTO instances (${INSTANCE_COLUMNS}, kept_from, serial)
    SELECT @target, latest_seq, definition_digest, status, process_id, definition_id, business_key, parent_id,
      call_node_id, due_at, CASE WHEN parent_id IS NULL THEN @target ELSE root_id END, ended_at, kept_from,
      ${NEXT_SERIAL}
    FROM instances WHERE instance_id = @source`,
  // New positions, in the source's seq order.
  copySteps: `INSERT INTO steps (rowid, ${CHECKPOINT_COLUMNS}, entry)
    SELECT ${NEXT_POSITION} - 1 + ROW_NUMBER() OVER (ORDER BY seq), @target, seq, parent_seq, schema,
      definition_digest, digest, document, entry
    FROM steps WHERE instance_id = @source`,
  // Before a delete: no position and no serial handed out so far is handed out again.
  raisePositionFloor: `UPDATE sequences SET value = MAX(value, COALESCE((SELECT MAX(rowid) FROM steps), 0))
    WHERE name = 'position_floor'`,
  raiseSerialFloor: `UPDATE sequences SET value = MAX(value, COALESCE((SELECT MAX(serial) FROM instances), 0))
    WHERE name = 'instance_serial'`,
  selectLog: `SELECT rowid AS position, instance_id, seq, entry FROM steps
    WHERE rowid > @after AND entry IS NOT NULL ORDER BY rowid LIMIT @limit`,
  selectLogOf: `SELECT rowid AS position, instance_id, seq, entry FROM steps
    WHERE instance_id = @instance_id AND rowid > @after AND entry IS NOT NULL ORDER BY rowid LIMIT @limit`,
  copyWrites: `INSERT INTO writes (instance_id, seq, task_id, idx, ord, value)
    SELECT @target, seq, task_id, idx, ord, value FROM writes WHERE instance_id = @source`,
  copySubscriptions: `INSERT INTO subscriptions (instance_id, ord, name, key)
    SELECT @target, ord, name, key FROM subscriptions WHERE instance_id = @source`,

  // The seq of the keepLast-th latest checkpoint (and where pruning starts): everything older goes.
  selectPruneCutoff: `SELECT seq, (SELECT kept_from FROM instances WHERE instance_id = @instance_id) AS kept_from
    FROM steps WHERE instance_id = @instance_id AND ${STORED} ORDER BY seq DESC LIMIT 1 OFFSET @offset`,
  pruneWrites: 'DELETE FROM writes WHERE instance_id = ? AND seq < ?',
  // The steps between kept_from and the cutoff: each goes, and its log entry (if any) comes back alone at the same
  // position. Not an UPDATE to NULL: SQLite leaves a row made smaller where it was, a leaf of its own (a step row
  // fills one), and the file would keep a page for every entry; a delete merges the emptied leaf away.
  pruneSteps: `DELETE FROM steps WHERE instance_id = @instance_id AND seq >= @from AND seq < @cutoff
    RETURNING rowid AS position, seq, entry`,
  insertEntry: 'INSERT INTO steps (rowid, instance_id, seq, entry) VALUES (@position, @instance_id, @seq, @entry)',
  setKeptFrom: 'UPDATE instances SET kept_from = @cutoff WHERE instance_id = @instance_id',

  deleteWrites: 'DELETE FROM writes WHERE instance_id = ?',

  // The readers of the log, and the last position all of them have read whole (0: one has read no entry whole).
  upsertReader: `INSERT INTO readers (name, position, cursor) VALUES (?, ?, ?)
    ON CONFLICT (name) DO UPDATE SET position = excluded.position, cursor = excluded.cursor`,
  selectReaders: 'SELECT name, position, cursor FROM readers ORDER BY name',
  deleteReader: 'DELETE FROM readers WHERE name = ?',
  selectReadTo: 'SELECT MIN(COALESCE(position, 0)) AS read_to FROM readers',
  // Ended instances through instances_ended, oldest end first: none holding a lease (its end is not delivered),
  // none with a running child, none with an entry a reader may not have read (after @read_to).
  selectExpired: `SELECT i.instance_id FROM instances i
    WHERE i.ended_at IS NOT NULL AND i.ended_at <= @ended_before AND i.status <> 'running'
      AND i.lease_owner IS NULL
      AND NOT EXISTS (SELECT 1 FROM instances c WHERE c.parent_id = i.instance_id AND c.status = 'running')
      AND NOT EXISTS (SELECT 1 FROM steps l
        WHERE l.instance_id = i.instance_id AND l.rowid > @read_to AND l.entry IS NOT NULL)
    ORDER BY i.ended_at, i.instance_id LIMIT @limit`,
  deleteSteps: 'DELETE FROM steps WHERE instance_id = ?',
  deleteSubscriptions: 'DELETE FROM subscriptions WHERE instance_id = ?',
  deleteInstance: 'DELETE FROM instances WHERE instance_id = ?',

  selectDeployment: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE digest = ?`,
  selectNextVersion: 'SELECT COALESCE(MAX(version), 0) + 1 AS version FROM deployments WHERE definition_id = ?',
  insertDeployment: `INSERT INTO deployments (${DEPLOYMENT_COLUMNS})
    VALUES (@definition_id, @digest, @version, @xml, @deployed_at)`,
  // ord is the rowid: insertion order, which is what "oldest first" means here (deployedAt is the caller's clock).
  selectDeployments: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY ord`,
  selectDeploymentsOf: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE definition_id = ? ORDER BY ord`,
  // What a first put's deploymentsSeen is compared with.
  countDeployments: 'SELECT COUNT(*) AS stored FROM deployments',
} as const;

/** Every fixed statement, prepared on one connection. */
export type Statements = Record<keyof typeof SQL, SqliteStatement>;

/** Prepare every fixed statement on `db`: once per connection, as preparing parses and plans. */
export function statements(db: SqliteDatabase): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([name, source]) => [name, db.prepare(source)])) as Statements;
}

/** The columns of an instance row a put may change besides `latest_seq`, which every put writes. */
export const PUT_COLUMNS = [
  'definition_digest',
  'status',
  'process_id',
  'definition_id',
  'business_key',
  'parent_id',
  'call_node_id',
  'due_at',
  'ended_at',
] as const;

/** One of {@link PUT_COLUMNS}. */
export type PutColumn = (typeof PUT_COLUMNS)[number];

/**
 * The UPDATE of a put on an existing instance row, setting `latest_seq` and only the `changed` columns: SQLite
 * rewrites an index whenever the SET names one of its columns, same value or not. A changed parent derives
 * `root_id` again; `release` clears the lease. Binds like `insertInstance`.
 */
export function updateInstanceSql(changed: readonly PutColumn[], release: boolean): string {
  const set = ['latest_seq = @latest_seq', ...changed.map((column) => `${column} = @${column}`)];
  if (changed.includes('parent_id')) set.push(`root_id = ${DERIVED_ROOT_ID}`);
  if (release) set.push('lease_owner = NULL', 'lease_token = NULL', 'lease_expires_at = NULL');
  return `UPDATE instances SET ${set.join(', ')} WHERE instance_id = @instance_id`;
}

/** The filters of an `instances` query that are present, which decide the statement's shape. */
export interface InstanceFilterShape {
  roots: boolean;
  children: boolean;
  parentId: boolean;
  status: boolean;
  /** The status asked is not `completed`: the statement names the status index's condition, so it is used. */
  liveStatus: boolean;
  serial: boolean;
  definition: boolean;
  processId: boolean;
  businessKey: boolean;
  after: boolean;
  limit: boolean;
  rootId: boolean;
  before: boolean;
  /** Ids descending. */
  desc: boolean;
  /** Only the ids are read (`instanceIds`): from the index alone where one serves the filter. */
  idsOnly: boolean;
  ids: boolean;
}

/**
 * The `instances` statement for one filter shape. Built per shape (and cached by the caller) rather than
 * as one statement of `(? IS NULL OR col = ?)` terms, which would keep SQLite from using the indexes.
 * Parameters bind by name: `@serial`, `@ids` (JSON), `@parentId`, `@rootId`, `@status`, `@definition`, `@processId`, `@businessKey`, `@after`, `@before`, `@limit`.
 */
export function selectInstancesSql(shape: InstanceFilterShape): string {
  const where: string[] = [];
  if (shape.serial) where.push('serial = @serial');
  // One statement for any number of ids: a JSON array, its values as a table.
  if (shape.ids) where.push('instance_id IN (SELECT value FROM json_each(@ids))');
  if (shape.roots) where.push('parent_id IS NULL');
  if (shape.children) where.push('parent_id IS NOT NULL');
  if (shape.parentId) where.push('parent_id = @parentId');
  // The tree's root by its id and its descendants through instances_by_root (which holds no root), in id order.
  if (shape.rootId) where.push(`instance_id IN (${DESCENDANTS} UNION ALL SELECT @rootId) AND root_id = @rootId`);
  if (shape.status) where.push('status = @status');
  if (shape.liveStatus) where.push(LIVE);
  if (shape.definition) where.push('definition_id = @definition');
  if (shape.processId) where.push('process_id = @processId');
  if (shape.businessKey) where.push('business_key = @businessKey');
  // BINARY collation compares UTF-8 bytes, i.e. code points: the order the contract's keyset paging uses.
  if (shape.after) where.push('instance_id > @after');
  if (shape.before) where.push('instance_id < @before');
  return [
    `SELECT ${shape.idsOnly ? 'instance_id' : INSTANCE_READ} FROM instances`,
    where.length > 0 ? `WHERE ${where.join(' AND ')}` : '',
    shape.desc ? 'ORDER BY instance_id DESC' : 'ORDER BY instance_id',
    shape.limit ? 'LIMIT @limit' : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
}
