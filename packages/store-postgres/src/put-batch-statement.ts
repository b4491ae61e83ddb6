/**
 * The puts of a group-commit batch as one set-based statement, and its parameters. It applies
 * `put_checkpoint`'s rules (put-function-v8.ts) to every put at once, one write per table for all of them: the
 * update of the stored instances carries the rules in its `WHERE`, which the server checks again on the newest
 * version of a row once it holds its lock (READ COMMITTED's recheck), and the instances not stored are
 * inserted. A put it does not store gets no answer row; the caller runs the full rules for it after the
 * statement, in the same transaction. The batch's transaction holds the schema fence already, so the
 * statement does not read the schema version.
 *
 * On a batch of 1,000 the server takes about half the time that calling the function once per put took.
 */
import type { PutCheckpoint } from '@thresher/checkpoint';
import { CHECKPOINT_COLUMNS } from '@thresher/checkpoint/store-kit';
import { checkpointParams, instanceParams, putLeaseParams } from './rows.js';

/** The fields of a put's row in the statement's first parameter. */
export const PUT_FIELDS = [
  ['instance_id', 'text'],
  ['seq', 'bigint'],
  ['parent_seq', 'bigint'],
  ['schema_no', 'integer'],
  ['definition_digest', 'text'],
  ['digest', 'text'],
  ['document_from', 'integer'],
  ['document_length', 'integer'],
  ['status', 'text'],
  ['process_id', 'text'],
  ['definition_id', 'text'],
  ['business_key', 'text'],
  ['parent_id', 'text'],
  ['call_node_id', 'text'],
  ['due_at', 'double precision'],
  ['ended_at', 'double precision'],
  ['subscription_count', 'integer'],
  ['fence_owner', 'text'],
  ['fence_token', 'bigint'],
  ['releasing', 'boolean'],
  ['claim_owner', 'text'],
  ['claim_expires_at', 'double precision'],
  ['log_from', 'integer'],
  ['log_length', 'integer'],
  ['keep_last', 'integer'],
] as const;

/** `e.v`'s field `i` (a JSON array element) as a column of its type. */
const fieldsOf = (element: string) =>
  PUT_FIELDS.map(([name, type], i) =>
    type === 'text' ? `${element}->>${i} AS ${name}` : `(${element}->>${i})::${type} AS ${name}`,
  ).join(', ');

/**
 * What the statement reads of a put: one JSON array per put in $1 (a JSON array of them, in the batch's
 * order), its fields in `PUT_FIELDS`' order: the checkpoint row, where its document lies in the documents laid
 * end to end ($2, one bytea), the indexed meta, how many subscriptions it has, the fence, release and the
 * claim, where its log entry lies in $2 after the documents (NULLs: none), and how many checkpoints it keeps. Then the subscriptions of all puts in $3, each `[instance, position, name, key]`. JSON, not an
 * array per column: the client serialises JSON natively, where `pg` escapes an array parameter element by
 * element. Its texts are the puts' own, checked storable before (no U+0000, no lone surrogate, which `jsonb`
 * would refuse); the documents stay bytes.
 *
 * Decided as the function does (NULL-safe throughout): a put whose instance is stored continues it (no
 * claim, its parent seq the latest, its seq beyond, its fence the held lease); a put of an instance not
 * stored creates it (no parent seq, no fence). A parent newly linked must be stored before the statement
 * and not be written by it, so the root it takes is the parent's settled one; a child of an instance of the
 * same batch goes to the full rules, which run after the statement and see its parent.
 *
 * Rows come out of each step, not joined back: the planner cannot estimate the steps' sizes, and a nested
 * loop between two of them would cost a batch of 1,000 a million comparisons. A concurrent creator of a new
 * instance fails the statement on the primary key (no ON CONFLICT, whose answer would need that join): the
 * group commit then runs each put of the batch alone, where the full rules decide.
 *
 * Subscriptions are replaced as two disjoint writes (the positions past the new count deleted, the others
 * upserted): statements of one WITH see one snapshot, and a delete and an insert of the same key would race.
 *
 * A stored put's log entry is filed in the puts' order, so positions follow it; one that keeps its latest
 * `keep_last` checkpoints deletes the older ones. Statements of one WITH see the snapshot from before it, so
 * the new checkpoint is not among those the delete sees: it keeps `keep_last - 1` of them (their journal
 * entries go with them, by the foreign key's cascade).
 *
 * Answers a row per put stored: its instance, and the token and expiry of the lease its claim took (NULL when
 * none was taken).
 */
export function putBatchStatement(s: string): string {
  const claiming = `r.claim_owner IS NOT NULL AND r.status = 'running'`;
  const releasing = 'r.releasing AND r.fence_owner IS NOT NULL';
  const checkpointColumns = 'instance_id, seq, parent_seq, schema_no, definition_digest, digest, document';
  return `WITH j AS MATERIALIZED (
    SELECT ${fieldsOf('e.v')}, e.ord FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(v, ord)
  ), r AS MATERIALIZED (
    SELECT r.*, substring($2::bytea FROM r.document_from FOR r.document_length) AS document,
      p.root_id AS parent_root,
      p.instance_id IS NOT NULL AND r.parent_id <> ALL (ARRAY(SELECT instance_id FROM j)) AS parent_settled
    FROM j AS r LEFT JOIN ${s}.instances p ON p.instance_id = r.parent_id
  ), fresh AS MATERIALIZED (
    SELECT r.* FROM r
    WHERE r.parent_seq IS NULL AND r.fence_owner IS NULL AND (r.parent_id IS NULL OR r.parent_settled)
      AND NOT EXISTS (SELECT 1 FROM ${s}.instances i WHERE i.instance_id = r.instance_id)
  ), updated AS (
    UPDATE ${s}.instances AS i SET latest_seq = r.seq, definition_digest = r.definition_digest,
      status = r.status, process_id = r.process_id, definition_id = r.definition_id,
      business_key = r.business_key, parent_id = r.parent_id, call_node_id = r.call_node_id, due_at = r.due_at,
      ended_at = r.ended_at, root_id = CASE WHEN i.parent_id IS NOT DISTINCT FROM r.parent_id THEN i.root_id
        ELSE COALESCE(r.parent_root, r.parent_id, r.instance_id) END,
      lease_owner = CASE WHEN ${releasing} THEN NULL ELSE i.lease_owner END,
      lease_token = CASE WHEN ${releasing} THEN NULL ELSE i.lease_token END,
      lease_expires_at = CASE WHEN ${releasing} THEN NULL ELSE i.lease_expires_at END
    FROM r
    WHERE i.instance_id = r.instance_id AND r.claim_owner IS NULL AND r.parent_seq = i.latest_seq
      AND r.seq > i.latest_seq AND i.lease_owner IS NOT DISTINCT FROM r.fence_owner
      AND i.lease_token IS NOT DISTINCT FROM r.fence_token
      AND (r.parent_id IS NULL OR i.parent_id IS NOT DISTINCT FROM r.parent_id OR r.parent_settled)
    RETURNING ${checkpointColumns.replace(/(\w+)/g, 'r.$1')}, r.subscription_count, r.log_from, r.log_length,
      r.keep_last, r.ord, NULL::bigint AS claimed_token, NULL::double precision AS claimed_expires_at
  ), created AS (
    INSERT INTO ${s}.instances AS i (instance_id, latest_seq, definition_digest, status, process_id,
      definition_id, business_key, parent_id, call_node_id, due_at, ended_at, root_id, lease_owner, lease_token,
      lease_expires_at)
    SELECT r.instance_id, r.seq, r.definition_digest, r.status, r.process_id, r.definition_id,
      r.business_key, r.parent_id, r.call_node_id, r.due_at, r.ended_at, COALESCE(r.parent_root, r.parent_id, r.instance_id),
      CASE WHEN ${claiming} THEN r.claim_owner END,
      CASE WHEN ${claiming} THEN nextval('${s}.lease_tokens') END,
      CASE WHEN ${claiming} THEN r.claim_expires_at END
    FROM fresh r ORDER BY r.ord
    RETURNING i.instance_id, i.lease_token AS claimed_token, i.lease_expires_at AS claimed_expires_at
  ), unsubscribed AS (
    DELETE FROM ${s}.subscriptions AS sub USING updated
    WHERE sub.instance_id = updated.instance_id AND sub.ord >= updated.subscription_count
  ), subscribed AS (
    INSERT INTO ${s}.subscriptions AS sub (instance_id, ord, name, key)
    SELECT u.instance_id, u.ord, u.name, u.key
    FROM (SELECT e.v->>0 AS instance_id, (e.v->>1)::integer AS ord, e.v->>2 AS name, e.v->>3 AS key
      FROM jsonb_array_elements($3::jsonb) AS e(v)) AS u
    WHERE u.instance_id IN (SELECT instance_id FROM updated UNION ALL SELECT instance_id FROM fresh)
    ON CONFLICT (instance_id, ord) DO UPDATE SET name = EXCLUDED.name, key = EXCLUDED.key
  ), written AS (
    INSERT INTO ${s}.checkpoints (${CHECKPOINT_COLUMNS})
    SELECT ${checkpointColumns} FROM updated UNION ALL SELECT ${checkpointColumns} FROM fresh
  ), logged AS (
    INSERT INTO ${s}.log (instance_id, seq, entry)
    SELECT l.instance_id, l.seq, substring($2::bytea FROM l.log_from FOR l.log_length)
    FROM (SELECT instance_id, seq, log_from, log_length, ord FROM updated
      UNION ALL SELECT instance_id, seq, log_from, log_length, ord FROM fresh) AS l
    WHERE l.log_from IS NOT NULL ORDER BY l.ord
  ), pruned AS (
    DELETE FROM ${s}.checkpoints AS c USING updated AS u
    WHERE u.keep_last IS NOT NULL AND c.instance_id = u.instance_id
      AND c.seq < CASE WHEN u.keep_last = 1 THEN u.seq ELSE (SELECT k.seq FROM ${s}.checkpoints k
        WHERE k.instance_id = u.instance_id ORDER BY k.seq DESC LIMIT 1 OFFSET u.keep_last - 2) END
  )
  SELECT instance_id, claimed_token, claimed_expires_at FROM updated UNION ALL SELECT * FROM created`;
}

/**
 * The statement's parameters for `checkpoints` (each of another instance): their rows as JSON (`PUT_FIELDS`),
 * the documents laid end to end in one binary parameter (a bytea[] would travel as hex text), each put's row
 * holding where its own starts (1-based) and its length, and the subscriptions of all puts as JSON.
 */
export function putBatchParams(checkpoints: readonly PutCheckpoint[]): unknown[] {
  const rows: unknown[][] = [];
  const subscriptions: unknown[][] = [];
  // Every document, then every log entry, laid end to end; `at` is where the next one goes (1-based).
  const laid: { from: number; bytes: Uint8Array }[] = [];
  let at = 1;
  const lay = (bytes: Uint8Array): number => {
    laid.push({ from: at, bytes });
    at += bytes.byteLength;
    return at - bytes.byteLength;
  };
  const documentsAt = checkpoints.map(({ bytes }) => lay(bytes));
  for (const [index, checkpoint] of checkpoints.entries()) {
    const { instanceId, meta, log } = checkpoint;
    // The full path's own parameter lists, in PUT_FIELDS' order: the row without its document, where the
    // document lies, the indexed meta, the subscription count, the lease, where the log entry lies.
    const row = checkpointParams(checkpoint);
    row[row.length - 1] = documentsAt[index];
    row.push(checkpoint.bytes.byteLength, ...instanceParams(checkpoint).slice(3), meta.subscriptions.length);
    row.push(...putLeaseParams(checkpoint));
    row.push(...(log === undefined ? [null, null] : [lay(log), log.byteLength]), checkpoint.keepLast ?? null);
    rows.push(row);
    for (const [ord, { name, key }] of meta.subscriptions.entries()) subscriptions.push([instanceId, ord, name, key]);
  }
  const all = new Uint8Array(at - 1);
  for (const { from, bytes } of laid) all.set(bytes, from - 1);
  return [JSON.stringify(rows), all, JSON.stringify(subscriptions)];
}
