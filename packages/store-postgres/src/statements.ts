/**
 * The SQL text of the PostgreSQL repository: the fixed statements of one schema ({@link statements}, named as
 * their SQLite counterparts where the operation is the same), and the statements built per call (a batch of
 * journal entries, the `instances` query for the filters present). Tables and columns are created by
 * `migrations.ts`; keep the two in step. What the rows they return look like is `rows.ts`. Parameters are
 * `$n`; the schema is spliced in quoted, as identifiers cannot be bound.
 */

import { sha256 } from '@thresher/checkpoint';
import { CHECKPOINT_COLUMNS, checkpointColumnsOf } from '@thresher/checkpoint/store-kit';
import { putBatchStatement } from './put-batch-statement.js';
import type { InstanceFilter } from './rows.js';

const CHECKPOINT_COLUMNS_OF_C = checkpointColumnsOf('c');
const INDEXED_COLUMNS =
  'latest_seq, definition_digest, status, process_id, definition_id, business_key, parent_id, call_node_id, due_at, ' +
  'ended_at';
const DEPLOYMENT_COLUMNS = 'definition_id, digest, version, xml, deployed_at';
const MESSAGE_COLUMNS = 'id, name, correlation_key, variables, published_at, expires_at';

/**
 * `takeMessage` in one statement, of any of the names $1: the message the taker ($4) already holds (expired or not), else the oldest
 * free one unexpired at $3, locked with SKIP LOCKED so concurrent takers pass over each other's pick instead
 * of waiting for it and finding it gone; then marked held. `keyTerm` matches the correlation key ($2).
 */
const takeMessageSql = (s: string, keyTerm: string) => `WITH picked AS (
    SELECT id FROM ${s}.messages
    WHERE name = ANY($1::text[]) AND ${keyTerm} AND (taker = $4 OR (taker IS NULL AND expires_at > $3))
    ORDER BY (taker IS NULL), published_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
  UPDATE ${s}.messages AS m SET taker = $4 FROM picked WHERE m.id = picked.id
  RETURNING ${MESSAGE_COLUMNS.replace(/(\w+)/g, 'm.$1')}`;

/**
 * The root of an instance's call tree from its parent's row (`rootIdOf` of `@thresher/checkpoint/store-kit`), for the
 * instance $1 with parent $8: its own id for a root, else the parent's root_id, else (the parent is not stored)
 * the parent's id.
 */
const derivedRootId = (s: string) =>
  `COALESCE((SELECT p.root_id FROM ${s}.instances p WHERE p.instance_id = $8), $8, $1)`;

/** An instance summary: the indexed columns of `i` and its subscriptions in the order they were put. */
const summaryColumns = (s: string) => `i.instance_id, ${INDEXED_COLUMNS.replace(/(\w+)/g, 'i.$1')}, i.root_id, i.serial,
  COALESCE((SELECT json_agg(json_build_array(sub.name, sub.key) ORDER BY sub.ord)
    FROM ${s}.subscriptions sub WHERE sub.instance_id = i.instance_id), '[]'::json) AS subscriptions`;

/** The common put's call of `put_checkpoint` (`seen`: the deployments seen as the 27th argument, or nothing). */
const putCheckpointSql = (s: string, seen: string) =>
  `SELECT outcome, schema_version, claimed_token, claimed_expires_at FROM ${s}.put_checkpoint(
      $1::text, $2::bigint, $3::bigint, $4::integer, $5::text, $6::text, $7::bytea,
      $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::double precision, $15::double precision,
      $16::text[], $17::text[], $18::text, $19::bigint, $20::boolean, $21::text, $22::double precision,
      $23::bytea, $24::integer, $25::text, $26::integer${seen})`;

/** The log entry filed with checkpoint `c`, as its row's `log` column (NULL when its put filed none). */
const logOfC = (s: string) =>
  `(SELECT l.entry FROM ${s}.log l WHERE l.instance_id = c.instance_id AND l.seq = c.seq) AS log`;

/** The checkpoint `picked` selects, with its log entry, joined with its journal entries in filing order. */
function checkpointWithWrites(picked: string, s: string): string {
  return `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${logOfC(s)}, w.task_id, w.idx, w.value FROM (${picked}) AS c
    LEFT JOIN ${s}.writes w ON w.instance_id = c.instance_id AND w.seq = c.seq ORDER BY w.ord`;
}

/** Every statement of one schema, by name; `s` is the quoted schema name. */
export function statements(s: string) {
  return {
    // The instance row is the lock every writer of the instance takes first: writers on one instance queue
    // here, and the held lease is read under it for the fence check.
    lockInstance: `SELECT latest_seq, parent_id, lease_owner, lease_token, lease_expires_at
      FROM ${s}.instances WHERE instance_id = $1 FOR UPDATE`,
    selectDocument: `SELECT document FROM ${s}.checkpoints WHERE instance_id = $1 AND seq = $2`,
    // DO NOTHING: when a concurrent put created the instance first, this one waits for it, inserts nothing,
    // and decides again under that instance's row lock.
    createInstance: `INSERT INTO ${s}.instances (instance_id, ${INDEXED_COLUMNS}, root_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, ${derivedRootId(s)})
      ON CONFLICT (instance_id) DO NOTHING`,
    // The lease columns are not the put's to change. root_id is derived again only when the put changes the
    // parent (SET reads the old row), so it stays as it was when an ancestor is deleted.
    updateInstance: `UPDATE ${s}.instances SET latest_seq = $2, definition_digest = $3, status = $4,
      process_id = $5, definition_id = $6, business_key = $7, parent_id = $8, call_node_id = $9, due_at = $10,
      ended_at = $11, root_id = CASE WHEN parent_id IS NOT DISTINCT FROM $8 THEN root_id ELSE ${derivedRootId(s)} END
      WHERE instance_id = $1`,
    deleteSubscriptions: `DELETE FROM ${s}.subscriptions WHERE instance_id = $1`,
    insertSubscriptions: `INSERT INTO ${s}.subscriptions (instance_id, ord, name, key)
      SELECT $1, u.ord - 1, u.name, u.key FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(name, key, ord)`,
    // The parent link rule: the parent the instance is indexed with, and whether a named parent is stored.
    instanceExists: `SELECT 1 AS present FROM ${s}.instances WHERE instance_id = $1`,
    insertCheckpoint: `INSERT INTO ${s}.checkpoints (${CHECKPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    insertLog: `INSERT INTO ${s}.log (instance_id, seq, entry) VALUES ($1, $2, $3)`,
    // A rewrite's entry, unless the checkpoint has one.
    insertLogIfNone: `INSERT INTO ${s}.log (instance_id, seq, entry) VALUES ($1, $2, $3)
      ON CONFLICT (instance_id, seq) DO NOTHING`,
    // The common put in one statement (put-function-v11.ts); the casts name the signature: without, or with
    // the deployments its instance was chosen among ($27).
    putCheckpoint: putCheckpointSql(s, ''),
    putCheckpointSeen: putCheckpointSql(s, ', $27::bigint'),
    // Puts of a batch in one set-based statement (put-batch-statement.ts).
    putCheckpoints: putBatchStatement(s),

    selectDigestAndDocument: `SELECT digest, document FROM ${s}.checkpoints WHERE instance_id = $1 AND seq = $2`,
    // Only what a schema migration changes: seq, parent_seq, definition_digest, writes and the index stay.
    rewriteCheckpoint: `UPDATE ${s}.checkpoints SET schema = $3, digest = $4, document = $5
      WHERE instance_id = $1 AND seq = $2`,

    // The entries already filed at a batch's (task_id, idx) pairs ($3, $4): what its repeats are compared with.
    selectFiledWrites: `SELECT w.task_id, w.idx, w.value FROM ${s}.writes w
      JOIN unnest($3::text[], $4::bigint[]) AS k(task_id, idx) ON w.task_id = k.task_id AND w.idx = k.idx
      WHERE w.instance_id = $1 AND w.seq = $2`,
    selectMaxWriteOrd: `SELECT MAX(ord) AS ord FROM ${s}.writes WHERE instance_id = $1 AND seq = $2`,

    // A checkpoint and its journal in one statement, so one snapshot (and one round trip) serves both: a row
    // per entry in filing order, or one row with NULL entry columns when it has none.
    selectLatest: checkpointWithWrites(
      `SELECT * FROM ${s}.checkpoints WHERE instance_id = $1 ORDER BY seq DESC LIMIT 1`,
      s,
    ),
    selectAtSeq: checkpointWithWrites(`SELECT * FROM ${s}.checkpoints WHERE instance_id = $1 AND seq = $2`, s),
    // The latest checkpoint of each id of $1 (distinct ids) with its journal, in the ids' order: one statement.
    selectLatestOfMany: `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${logOfC(s)}, w.task_id, w.idx, w.value
      FROM unnest($1::text[]) WITH ORDINALITY AS a(instance_id, ord)
      CROSS JOIN LATERAL (SELECT * FROM ${s}.checkpoints k WHERE k.instance_id = a.instance_id
        ORDER BY k.seq DESC LIMIT 1) AS c
      LEFT JOIN ${s}.writes w ON w.instance_id = c.instance_id AND w.seq = c.seq
      ORDER BY a.ord, w.ord`,
    // A page of history between exclusive bounds ($2 after, $3 before; NULL for none). LIMIT NULL is no limit.
    selectHistory: `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${logOfC(s)} FROM ${s}.checkpoints c
      WHERE c.instance_id = $1 AND ($2::bigint IS NULL OR c.seq > $2) AND ($3::bigint IS NULL OR c.seq < $3)
      ORDER BY c.seq LIMIT $4`,
    selectHistoryDesc: `SELECT ${CHECKPOINT_COLUMNS_OF_C}, ${logOfC(s)} FROM ${s}.checkpoints c
      WHERE c.instance_id = $1 AND ($2::bigint IS NULL OR c.seq > $2) AND ($3::bigint IS NULL OR c.seq < $3)
      ORDER BY c.seq DESC LIMIT $4`,
    // $1/$2 the position read after (NULLs: from the start), $3 one instance or NULL, $4 the page size.
    // Ordered by the xid8 column, qualified: a bare `tx` would name the text output column, and text order puts
    // transaction 1000 before 999.
    selectLog: `SELECT l.tx::text AS tx, l.position, l.instance_id, l.seq, l.entry FROM ${s}.log l
      WHERE ($1::xid8 IS NULL OR (l.tx, l.position) > ($1::xid8, $2::bigint))
        AND l.tx < pg_snapshot_xmin(pg_current_snapshot())
        AND ($3::text IS NULL OR l.instance_id = $3)
      ORDER BY l.tx, l.position LIMIT $4`,
    selectWritesBetween: `SELECT seq, task_id, idx, value FROM ${s}.writes
      WHERE instance_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq, ord`,

    deleteWrites: `DELETE FROM ${s}.writes WHERE instance_id = $1`,
    deleteLog: `DELETE FROM ${s}.log WHERE instance_id = $1`,
    deleteCheckpoints: `DELETE FROM ${s}.checkpoints WHERE instance_id = $1`,
    deleteInstance: `DELETE FROM ${s}.instances WHERE instance_id = $1`,

    // A copy's source is locked FOR SHARE: its writers wait until the copy commits, other copies do not.
    lockSource: `SELECT latest_seq FROM ${s}.instances WHERE instance_id = $1 FOR SHARE`,
    selectLatestSeq: `SELECT latest_seq FROM ${s}.instances WHERE instance_id = $1`,
    // The copy is unclaimed: the lease columns stay NULL. DO NOTHING: a target created meanwhile is a conflict.
    // It keeps the source's parent, so its root is derived as a put's would be: a copied root roots itself.
    copyInstance: `INSERT INTO ${s}.instances (instance_id, ${INDEXED_COLUMNS}, root_id)
      SELECT $2, ${INDEXED_COLUMNS}, CASE WHEN parent_id IS NULL THEN $2 ELSE root_id END
      FROM ${s}.instances WHERE instance_id = $1
      ON CONFLICT (instance_id) DO NOTHING`,
    copyCheckpoints: `INSERT INTO ${s}.checkpoints (${CHECKPOINT_COLUMNS})
      SELECT $2, seq, parent_seq, schema, definition_digest, digest, document FROM ${s}.checkpoints
      WHERE instance_id = $1`,
    // Positions (serials) are taken in the order the rows are inserted: seq order.
    copyLog: `INSERT INTO ${s}.log (instance_id, seq, entry)
      SELECT $2, seq, entry FROM ${s}.log WHERE instance_id = $1 ORDER BY seq`,
    copyWrites: `INSERT INTO ${s}.writes (instance_id, seq, task_id, idx, ord, value)
      SELECT $2, seq, task_id, idx, ord, value FROM ${s}.writes WHERE instance_id = $1`,
    copySubscriptions: `INSERT INTO ${s}.subscriptions (instance_id, ord, name, key)
      SELECT $2, ord, name, key FROM ${s}.subscriptions WHERE instance_id = $1`,

    // The seq of the keepLast-th latest checkpoint ($2 = keepLast - 1): everything older goes.
    selectPruneCutoff: `SELECT seq FROM ${s}.checkpoints WHERE instance_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2`,
    pruneWrites: `DELETE FROM ${s}.writes WHERE instance_id = $1 AND seq < $2`,
    pruneCheckpoints: `DELETE FROM ${s}.checkpoints WHERE instance_id = $1 AND seq < $2`,

    // The readers of the log: tx and position NULL while one has read nothing.
    upsertReader: `INSERT INTO ${s}.readers (name, tx, position, cursor) VALUES ($1, $2::xid8, $3::bigint, $4)
      ON CONFLICT (name) DO UPDATE SET tx = EXCLUDED.tx, position = EXCLUDED.position, cursor = EXCLUDED.cursor`,
    selectReaders: `SELECT name, tx::text AS tx, position, cursor FROM ${s}.readers ORDER BY name`,
    deleteReader: `DELETE FROM ${s}.readers WHERE name = $1`,
    // The last position every reader has read whole, (0, 0) while one has read no entry whole; no row without
    // readers. Locked, so no reader moves back while expire decides.
    selectReadTo: `SELECT COALESCE(tx, '0'::xid8)::text AS tx, COALESCE(position, 0) AS position
      FROM ${s}.readers ORDER BY COALESCE(tx, '0'::xid8), COALESCE(position, 0) LIMIT 1 FOR SHARE`,
    // Ended instances through instances_ended, oldest end first, locked (a writer of one passes it by): none
    // holding a lease (its end is not delivered), none with a running child, none with an entry after ($2, $3),
    // what every reader has read whole (NULLs: no reader).
    selectExpired: `SELECT i.instance_id FROM ${s}.instances i
      WHERE i.ended_at IS NOT NULL AND i.ended_at <= $1 AND i.status <> 'running' AND i.lease_owner IS NULL
        AND NOT EXISTS (SELECT 1 FROM ${s}.instances c WHERE c.parent_id = i.instance_id AND c.status = 'running')
        AND ($2::xid8 IS NULL OR NOT EXISTS (SELECT 1 FROM ${s}.log l
          WHERE l.instance_id = i.instance_id AND (l.tx, l.position) > ($2::xid8, $3::bigint)))
      ORDER BY i.ended_at, i.instance_id LIMIT $4
      FOR UPDATE OF i SKIP LOCKED`,

    // Claimable: running, and no lease held, the held one lapsed at $now, or held by an owner in $6 (takeOver). SKIP LOCKED passes over rows another
    // transaction holds (a concurrent claim, or a writer), so concurrent claimers never wait for or collide with
    // each other; the token comes from the store-wide sequence.
    // taken_from: the holder a lease was taken over from (the row is locked, so what picked read is current).
    // RETURNING has no order: the outer SELECT sorts by the "C" collation, i.e. by code point.
    claim: `WITH picked AS (
        SELECT instance_id, lease_owner FROM ${s}.instances
        WHERE (status = 'running' OR $7::boolean)
          AND (lease_owner IS NULL OR lease_expires_at <= $2 OR lease_owner = ANY ($6::text[]))
          AND ($4::text[] IS NULL OR instance_id = ANY ($4::text[]))
          AND (NOT $7::boolean OR lease_owner IS NOT NULL)
        ORDER BY instance_id LIMIT $3
        FOR UPDATE SKIP LOCKED),
      claimed AS (
        UPDATE ${s}.instances AS i
        SET lease_owner = $1, lease_token = nextval('${s}.lease_tokens'), lease_expires_at = $5
        FROM picked WHERE i.instance_id = picked.instance_id
        RETURNING i.instance_id, i.lease_token, i.lease_expires_at)
      SELECT c.instance_id, c.lease_token, c.lease_expires_at, p.lease_owner AS taken_from
      FROM claimed c JOIN picked p ON p.instance_id = c.instance_id ORDER BY c.instance_id`,
    selectLeaseOwners: `SELECT DISTINCT lease_owner COLLATE "C" AS lease_owner FROM ${s}.instances
      WHERE lease_owner IS NOT NULL ORDER BY 1`,
    selectLease: `SELECT lease_owner, lease_token, lease_expires_at FROM ${s}.instances WHERE instance_id = $1`,
    // Only while the lease held is this one (owner and token): the row lock and the check in one statement.
    renewLease: `UPDATE ${s}.instances SET lease_expires_at = $4
      WHERE instance_id = $1 AND lease_owner = $2 AND lease_token = $3`,
    releaseLease: `UPDATE ${s}.instances SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
      WHERE instance_id = $1 AND lease_owner = $2 AND lease_token = $3`,
    // Releases in one statement, fenced, committed without waiting for the flush (release-function-v10.ts).
    releaseUnflushed: `SELECT outcome, schema_version FROM ${s}.release_leases($1::text[], $2::text[], $3::bigint[],
      $4::text, $5::integer)`,

    // Names the partial index's conditions, so instances_due serves it.
    selectDueTimers: `SELECT instance_id, due_at FROM ${s}.instances
      WHERE status = 'running' AND due_at IS NOT NULL AND due_at <= $1 ORDER BY due_at, instance_id LIMIT $2`,
    selectSubscribers: `SELECT DISTINCT sub.instance_id FROM ${s}.subscriptions sub
      JOIN ${s}.instances i ON i.instance_id = sub.instance_id
      WHERE sub.name = $1 AND sub.key = $2 AND i.status = 'running' ORDER BY sub.instance_id`,
    selectSubscribersWithoutKey: `SELECT DISTINCT sub.instance_id FROM ${s}.subscriptions sub
      JOIN ${s}.instances i ON i.instance_id = sub.instance_id
      WHERE sub.name = $1 AND sub.key IS NULL AND i.status = 'running' ORDER BY sub.instance_id`,

    // DO NOTHING on the primary key only: putting a stored id again changes nothing.
    insertMessage: `INSERT INTO ${s}.messages (${MESSAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (id) DO NOTHING`,
    takeMessage: takeMessageSql(s, 'correlation_key = $2'),
    // $2 is bound (as NULL) so both statements take the same parameters.
    takeMessageWithoutKey: takeMessageSql(s, '(correlation_key IS NULL AND $2::text IS NULL)'),
    deleteMessage: `DELETE FROM ${s}.messages WHERE id = $1`,
    expireMessages: `DELETE FROM ${s}.messages WHERE expires_at <= $1`,

    // The same attempt moves only not_before; another replaces the row, unlocked, at a new rank. Nothing is
    // stored for an instance the store does not have.
    offerJob: `INSERT INTO ${s}.jobs (instance_id, job_id, type, attempt, not_before, rank)
      SELECT $1, $2, $3, $4, $5, nextval('${s}.job_ranks') WHERE EXISTS (SELECT 1 FROM ${s}.instances WHERE instance_id = $1)
      ON CONFLICT (instance_id, job_id) DO UPDATE SET
        not_before = excluded.not_before,
        type = CASE WHEN jobs.attempt = excluded.attempt THEN jobs.type ELSE excluded.type END,
        rank = CASE WHEN jobs.attempt = excluded.attempt THEN jobs.rank ELSE excluded.rank END,
        worker = CASE WHEN jobs.attempt = excluded.attempt THEN jobs.worker END,
        deadline = CASE WHEN jobs.attempt = excluded.attempt THEN jobs.deadline END,
        attempt = excluded.attempt`,
    deleteJob: `DELETE FROM ${s}.jobs WHERE instance_id = $1 AND job_id = $2`,
    // SKIP LOCKED: concurrent activations pass over each other's picks instead of waiting for them.
    activateJobs: `UPDATE ${s}.jobs j SET worker = $2, deadline = $4
      FROM (SELECT instance_id, job_id FROM ${s}.jobs
        WHERE type = $1 AND (not_before IS NULL OR not_before <= $3) AND (deadline IS NULL OR deadline <= $3)
        ORDER BY rank LIMIT $5 FOR UPDATE SKIP LOCKED) AS picked
      WHERE j.instance_id = picked.instance_id AND j.job_id = picked.job_id
      RETURNING j.instance_id, j.job_id, j.type, j.attempt, j.worker, j.deadline, j.rank`,
    relockJob: `UPDATE ${s}.jobs SET deadline = $5
      WHERE instance_id = $1 AND job_id = $2 AND attempt = $3 AND deadline > $4
      RETURNING instance_id, job_id, type, attempt, worker, deadline`,
    selectJobLock: `SELECT instance_id, job_id, type, attempt, worker, deadline FROM ${s}.jobs
      WHERE instance_id = $1 AND job_id = $2 AND worker IS NOT NULL`,
    deleteJobs: `DELETE FROM ${s}.jobs WHERE instance_id = $1`,

    // Deployments are rare: one writer at a time keeps version numbering free of gaps and races.
    lockDeployments: `LOCK TABLE ${s}.deployments IN SHARE ROW EXCLUSIVE MODE`,
    selectDeployment: `SELECT ${DEPLOYMENT_COLUMNS} FROM ${s}.deployments WHERE digest = $1`,
    selectNextVersion: `SELECT COALESCE(MAX(version), 0) + 1 AS version FROM ${s}.deployments WHERE definition_id = $1`,
    insertDeployment: `INSERT INTO ${s}.deployments (${DEPLOYMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`,
    // ord is an identity column: insertion order, which is what "oldest first" means (deployedAt is the caller's clock).
    selectDeployments: `SELECT ${DEPLOYMENT_COLUMNS} FROM ${s}.deployments ORDER BY ord`,
    selectDeploymentsOf: `SELECT ${DEPLOYMENT_COLUMNS} FROM ${s}.deployments WHERE definition_id = $1 ORDER BY ord`,
    // What a first put's deploymentsSeen is compared with.
    countDeployments: `SELECT count(*) AS stored FROM ${s}.deployments`,

    /** {@link insertWritesSql} in this schema. */
    insertWrites: (count: number) => insertWritesSql(s, count),
    /** {@link selectInstancesSql} in this schema. */
    selectInstances: (filter: InstanceFilter) => selectInstancesSql(s, filter),
  } as const;
}

export type Statements = ReturnType<typeof statements>;

/**
 * `INSERT` of `count` journal entries into `writes`, first entry wins: `$1` instance, `$2` seq, `$3` the
 * checkpoint's highest ord so far (-1 for none), then (task_id, idx, value) per entry. An entry skipped by
 * `DO NOTHING` leaves a gap in ord, which only orders.
 */
export function insertWritesSql(s: string, count: number): string {
  const rows = Array.from({ length: count }, (_, i) => {
    const at = 4 + 3 * i;
    return `($1, $2, $${at}, $${at + 1}::bigint, $3::bigint + ${i + 1}, $${at + 2}::bytea)`;
  });
  // Repeats are sorted out before (planWrites); DO NOTHING, never DO UPDATE, so a filed entry is never rewritten.
  return `INSERT INTO ${s}.writes (instance_id, seq, task_id, idx, ord, value) VALUES ${rows.join(', ')}
    ON CONFLICT (instance_id, seq, task_id, idx) DO NOTHING`;
}

/**
 * The `instances` statement for the filters present, with its values. Only present filters become terms,
 * rather than `($n IS NULL OR col = $n)` for all, so the planner can use the discovery indexes. The id
 * comparison and the order use the columns' `"C"` collation: Unicode code point order.
 */
export function selectInstancesSql(s: string, filter: InstanceFilter): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.serial !== undefined) where.push(`i.serial = ${bind(filter.serial)}`);
  if (filter.ids !== undefined) where.push(`i.instance_id = ANY(${bind([...filter.ids])}::text[])`);
  if (filter.roots) where.push('i.parent_id IS NULL');
  if (filter.children) where.push('i.parent_id IS NOT NULL');
  if (filter.parentId !== undefined) where.push(`i.parent_id = ${bind(filter.parentId)}`);
  if (filter.rootId !== undefined) {
    // The tree's root by its id and its descendants through instances_by_root (which holds no root).
    const root = bind(filter.rootId);
    where.push(
      `i.instance_id IN (SELECT d.instance_id FROM ${s}.instances d WHERE d.root_id = ${root} AND d.parent_id IS NOT NULL UNION ALL SELECT ${root})`,
      `i.root_id = ${root}`,
    );
  }
  if (filter.status !== undefined) where.push(`i.status = ${bind(filter.status)}`);
  // Named so that the status index (which leaves completed instances out) serves a generic plan too.
  if (filter.status !== undefined && filter.status !== 'completed') where.push(`i.status <> 'completed'`);
  if (filter.definition !== undefined) where.push(`i.definition_id = ${bind(filter.definition)}`);
  if (filter.processId !== undefined) where.push(`i.process_id = ${bind(filter.processId)}`);
  if (filter.businessKey !== undefined) where.push(`i.business_key = ${bind(filter.businessKey)}`);
  if (filter.after !== undefined) where.push(`i.instance_id > ${bind(filter.after)}`);
  if (filter.before !== undefined) where.push(`i.instance_id < ${bind(filter.before)}`);
  const text = [
    `SELECT ${filter.idsOnly ? 'i.instance_id' : summaryColumns(s)} FROM ${s}.instances i`,
    where.length > 0 ? `WHERE ${where.join(' AND ')}` : '',
    filter.desc ? 'ORDER BY i.instance_id DESC' : 'ORDER BY i.instance_id',
    filter.limit !== undefined ? `LIMIT ${bind(filter.limit)}` : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
  return { text, values };
}

/** A statement and the name it is prepared under (`undefined`: sent unnamed, parsed and planned at each call). */
export interface NamedStatement {
  text: string;
  name: string | undefined;
}

/**
 * The common put's two statements (version 5's signature, and version 7's with the deployments seen), named
 * when `prepared`. A name is derived from the text, schema included: repositories of different schemas on
 * one pool never share a name, and `pg` refuses one name for two texts.
 */
export function putStatements(sql: Statements, prepared: boolean): { put: NamedStatement; seen: NamedStatement } {
  const named = (text: string): NamedStatement => ({
    text,
    name: prepared ? `thresher_put_${sha256(text).slice(0, 32)}` : undefined,
  });
  return { put: named(sql.putCheckpoint), seen: named(sql.putCheckpointSeen) };
}

/**
 * How a repository calls `put_checkpoint`: its two statements (named when the repository prepares them) and
 * the schema fence as the function takes it (the migration lock key, and the schema named in refusals).
 */
export interface PutFunctionCall {
  statements: { put: NamedStatement; seen: NamedStatement };
  lockKey: string;
  where: string;
}
