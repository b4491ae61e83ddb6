/**
 * The SQL text of the SQLite repository: the fixed statements it prepares once per connection ({@link SQL},
 * named as their PostgreSQL counterparts where the operation is the same) and the `instances` query built
 * per filter shape. Tables and columns are created by `migrations.ts`; keep the two in step. What the rows
 * they return look like is `rows.ts`.
 */
import type { SqliteDatabase, SqliteStatement } from './driver.js';

const CHECKPOINT_COLUMNS = 'instance_id, seq, parent_seq, schema, definition_digest, digest, document';
const INSTANCE_COLUMNS =
  'instance_id, latest_seq, definition_digest, status, process_id, definition_id, business_key, parent_id, ' +
  'call_node_id, due_at, root_id';
/**
 * The root of an instance's call tree from its parent's row (`rootIdOf` of `@thresher/checkpoint`): its own id
 * for a root, else the parent's root_id, else (the parent is not stored) the parent's id.
 */
const DERIVED_ROOT_ID =
  'COALESCE((SELECT p.root_id FROM instances p WHERE p.instance_id = @parent_id), @parent_id, @instance_id)';
const DEPLOYMENT_COLUMNS = 'definition_id, digest, version, xml, deployed_at';
const MESSAGE_COLUMNS = 'id, name, correlation_key, variables, published_at, expires_at';

/** Every fixed statement, by name. Named parameters (`@name`) bind from objects. */
export const SQL = {
  selectDocument: 'SELECT document FROM checkpoints WHERE instance_id = ? AND seq = ?',
  selectLatestSeq: 'SELECT latest_seq FROM instances WHERE instance_id = ?',
  // root_id is derived when the instance is created, and again only when a put changes its parent: so it
  // stays as it was when an ancestor is deleted. SET reads the old row, so parent_id here is the stored one.
  upsertInstance: `INSERT INTO instances (${INSTANCE_COLUMNS})
    VALUES (@instance_id, @latest_seq, @definition_digest, @status, @process_id, @definition_id, @business_key,
      @parent_id, @call_node_id, @due_at, ${DERIVED_ROOT_ID})
    ON CONFLICT (instance_id) DO UPDATE SET
      latest_seq = excluded.latest_seq, definition_digest = excluded.definition_digest, status = excluded.status,
      process_id = excluded.process_id, definition_id = excluded.definition_id,
      business_key = excluded.business_key, parent_id = excluded.parent_id, call_node_id = excluded.call_node_id,
      due_at = excluded.due_at,
      root_id = CASE WHEN parent_id IS excluded.parent_id THEN root_id ELSE excluded.root_id END`,
  insertSubscription: 'INSERT INTO subscriptions (instance_id, ord, name, key) VALUES (?, ?, ?, ?)',
  // The subscriptions of a page of summaries, by the page's ids as a JSON array (ids never hold lone surrogates).
  selectSubscriptionsOf: `SELECT instance_id, name, key FROM subscriptions
    WHERE instance_id IN (SELECT value FROM json_each(?)) ORDER BY instance_id, ord`,
  // The parent link rule: the parent the instance is indexed with, and whether a named parent is stored.
  selectParentId: 'SELECT parent_id FROM instances WHERE instance_id = ?',
  instanceExists: 'SELECT 1 AS present FROM instances WHERE instance_id = ?',
  insertCheckpoint: `INSERT INTO checkpoints (${CHECKPOINT_COLUMNS})
    VALUES (@instance_id, @seq, @parent_seq, @schema, @definition_digest, @digest, @document)`,

  selectDigestAndDocument: 'SELECT digest, document FROM checkpoints WHERE instance_id = ? AND seq = ?',
  // Only what a schema migration changes: seq, parent_seq, definition_digest, writes and the index stay.
  rewriteCheckpoint: `UPDATE checkpoints SET schema = @schema, digest = @digest, document = @document
    WHERE instance_id = @instance_id AND seq = @seq`,

  // What a repeated (task_id, idx) is compared with: a repeat must be the same bytes.
  selectWrite: 'SELECT value FROM writes WHERE instance_id = ? AND seq = ? AND task_id = ? AND idx = ?',
  selectMaxWriteOrd: 'SELECT MAX(ord) AS ord FROM writes WHERE instance_id = ? AND seq = ?',
  // Repeats are sorted out before (planWrites); DO NOTHING, never REPLACE, so a filed entry is never rewritten.
  insertWrite: `INSERT INTO writes (instance_id, seq, task_id, idx, ord, value) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (instance_id, seq, task_id, idx) DO NOTHING`,

  selectLatest: `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE instance_id = ? ORDER BY seq DESC LIMIT 1`,
  selectAtSeq: `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE instance_id = ? AND seq = ?`,
  selectWritesOf: 'SELECT seq, task_id, idx, value FROM writes WHERE instance_id = ? AND seq = ? ORDER BY ord',
  // A page of history between exclusive bounds; an absent bound is bound as -Infinity or Infinity, which every
  // integer seq passes (a finite default would leave out the seq it names). LIMIT -1 means no limit in SQLite.
  selectHistory: `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints
    WHERE instance_id = @instance_id AND seq > @after AND seq < @before ORDER BY seq LIMIT @limit`,
  selectHistoryDesc: `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints
    WHERE instance_id = @instance_id AND seq > @after AND seq < @before ORDER BY seq DESC LIMIT @limit`,
  selectWritesBetween: `SELECT seq, task_id, idx, value FROM writes
    WHERE instance_id = ? AND seq >= ? AND seq <= ? ORDER BY seq, ord`,

  selectLease: 'SELECT owner, token, expires_at FROM leases WHERE instance_id = ?',
  nextLeaseToken: "UPDATE sequences SET value = value + 1 WHERE name = 'lease_token' RETURNING value",
  upsertLease: `INSERT INTO leases (instance_id, owner, token, expires_at) VALUES (@instance_id, @owner, @token, @expires_at)
    ON CONFLICT (instance_id) DO UPDATE SET owner = excluded.owner, token = excluded.token, expires_at = excluded.expires_at`,
  renewLease: 'UPDATE leases SET expires_at = ? WHERE instance_id = ? AND owner = ? AND token = ?',
  releaseLease: 'DELETE FROM leases WHERE instance_id = ? AND owner = ? AND token = ?',
  // Running instances with no lease, a lapsed one, or one an owner named in takeOver holds, in id order.
  selectClaimable: `SELECT i.instance_id FROM instances i LEFT JOIN leases l ON l.instance_id = i.instance_id
    WHERE i.status = 'running'
      AND (l.instance_id IS NULL OR l.expires_at <= @now OR l.owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY i.instance_id LIMIT @limit`,
  // Work a holder left behind: held leases only (the leases table, not every running instance), ended
  // instances included (a lease left on one marks deliveries its end still owes).
  selectLapsed: `SELECT l.instance_id FROM leases l JOIN instances i ON i.instance_id = l.instance_id
    WHERE (l.expires_at <= @now OR l.owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY l.instance_id LIMIT @limit`,
  selectLapsedAmong: `SELECT l.instance_id FROM leases l JOIN instances i ON i.instance_id = l.instance_id
    WHERE l.instance_id IN (SELECT value FROM json_each(@ids))
      AND (l.expires_at <= @now OR l.owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY l.instance_id LIMIT @limit`,
  selectClaimableAmong: `SELECT i.instance_id FROM instances i LEFT JOIN leases l ON l.instance_id = i.instance_id
    WHERE i.instance_id IN (SELECT value FROM json_each(@ids))
      AND i.status = 'running'
      AND (l.instance_id IS NULL OR l.expires_at <= @now OR l.owner IN (SELECT value FROM json_each(@takeOver)))
    ORDER BY i.instance_id LIMIT @limit`,

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
  selectHeldMessage: `SELECT ${MESSAGE_COLUMNS} FROM messages
    WHERE name = @name AND correlation_key IS @key AND taker = @taker ORDER BY published_at, id LIMIT 1`,
  selectFreeMessage: `SELECT ${MESSAGE_COLUMNS} FROM messages
    WHERE name = @name AND correlation_key IS @key AND taker IS NULL AND expires_at > @now
    ORDER BY published_at, id LIMIT 1`,
  holdMessage: 'UPDATE messages SET taker = ? WHERE id = ?',
  deleteMessage: 'DELETE FROM messages WHERE id = ?',
  expireMessages: 'DELETE FROM messages WHERE expires_at <= ?',

  // The copy keeps the source's parent, so its root is derived as a put's would be: a copied root roots itself.
  copyInstance: `INSERT INTO instances (${INSTANCE_COLUMNS})
    SELECT @target, latest_seq, definition_digest, status, process_id, definition_id, business_key, parent_id,
      call_node_id, due_at, CASE WHEN parent_id IS NULL THEN @target ELSE root_id END
    FROM instances WHERE instance_id = @source`,
  copyCheckpoints: `INSERT INTO checkpoints (${CHECKPOINT_COLUMNS})
    SELECT @target, seq, parent_seq, schema, definition_digest, digest, document
    FROM checkpoints WHERE instance_id = @source`,
  copyWrites: `INSERT INTO writes (instance_id, seq, task_id, idx, ord, value)
    SELECT @target, seq, task_id, idx, ord, value FROM writes WHERE instance_id = @source`,
  copySubscriptions: `INSERT INTO subscriptions (instance_id, ord, name, key)
    SELECT @target, ord, name, key FROM subscriptions WHERE instance_id = @source`,

  // The seq of the keepLast-th latest checkpoint: everything older goes.
  selectPruneCutoff: 'SELECT seq FROM checkpoints WHERE instance_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
  pruneWrites: 'DELETE FROM writes WHERE instance_id = ? AND seq < ?',
  pruneCheckpoints: 'DELETE FROM checkpoints WHERE instance_id = ? AND seq < ?',

  deleteWrites: 'DELETE FROM writes WHERE instance_id = ?',
  deleteCheckpoints: 'DELETE FROM checkpoints WHERE instance_id = ?',
  deleteSubscriptions: 'DELETE FROM subscriptions WHERE instance_id = ?',
  deleteLease: 'DELETE FROM leases WHERE instance_id = ?',
  deleteInstance: 'DELETE FROM instances WHERE instance_id = ?',

  selectDeployment: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE digest = ?`,
  selectNextVersion: 'SELECT COALESCE(MAX(version), 0) + 1 AS version FROM deployments WHERE definition_id = ?',
  insertDeployment: `INSERT INTO deployments (${DEPLOYMENT_COLUMNS})
    VALUES (@definition_id, @digest, @version, @xml, @deployed_at)`,
  // ord is the rowid: insertion order, which is what "oldest first" means here (deployedAt is the caller's clock).
  selectDeployments: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY ord`,
  selectDeploymentsOf: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE definition_id = ? ORDER BY ord`,
} as const;

/** Every fixed statement, prepared on one connection. */
export type Statements = Record<keyof typeof SQL, SqliteStatement>;

/** Prepare every fixed statement on `db`: once per connection, as preparing parses and plans. */
export function statements(db: SqliteDatabase): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([name, source]) => [name, db.prepare(source)])) as Statements;
}

/** The filters of an `instances` query that are present, which decide the statement's shape. */
export interface InstanceFilterShape {
  roots: boolean;
  children: boolean;
  parentId: boolean;
  status: boolean;
  definition: boolean;
  after: boolean;
  limit: boolean;
  rootId: boolean;
  before: boolean;
  /** Ids descending. */
  desc: boolean;
}

/**
 * The `instances` statement for one filter shape. Built per shape (and cached by the caller) rather than
 * as one statement of `(? IS NULL OR col = ?)` terms, which would keep SQLite from using the indexes.
 * Parameters bind by name: `@parentId`, `@rootId`, `@status`, `@definition`, `@after`, `@before`, `@limit`.
 */
export function selectInstancesSql(shape: InstanceFilterShape): string {
  const where: string[] = [];
  if (shape.roots) where.push('parent_id IS NULL');
  if (shape.children) where.push('parent_id IS NOT NULL');
  if (shape.parentId) where.push('parent_id = @parentId');
  if (shape.rootId) where.push('root_id = @rootId');
  if (shape.status) where.push('status = @status');
  if (shape.definition) where.push('definition_id = @definition');
  // BINARY collation compares UTF-8 bytes, i.e. code points: the order the contract's keyset paging uses.
  if (shape.after) where.push('instance_id > @after');
  if (shape.before) where.push('instance_id < @before');
  return [
    `SELECT ${INSTANCE_COLUMNS} FROM instances`,
    where.length > 0 ? `WHERE ${where.join(' AND ')}` : '',
    shape.desc ? 'ORDER BY instance_id DESC' : 'ORDER BY instance_id',
    shape.limit ? 'LIMIT @limit' : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
}
