/**
 * The SQL of schema version 11: `put_checkpoint` with what schema 11 adds to a put — the instance's end time
 * (`ended_at`, what `expire` reads), the step's log entry (filed in `log` at the next position), and the
 * pruning the put does (`keep_last`: the instance keeps its latest that many checkpoints, with their journals).
 * Both signatures again, as version 8 planned them: a parameter only ever stands where its value cannot change
 * the plan, the parent's root read into a variable only when the put links a parent.
 *
 * Migrations are append-only: this text is that migration's and never changes (nor may the generator below);
 * a later change to the function is a new migration. The rules are version 5's (put-function-v5.ts), answer for
 * answer: 'stored', 'upgraded' (nothing written) or 'fallback' (nothing written; the caller's full path
 * decides, with the exact error).
 */

const PARAMETERS = `p_instance_id text, p_seq bigint, p_parent_seq bigint, p_schema integer, p_definition_digest text,
  p_digest text, p_document bytea,
  p_status text, p_process_id text, p_definition_id text, p_business_key text, p_parent_id text,
  p_call_node_id text, p_due_at double precision, p_ended_at double precision,
  p_subscription_names text[], p_subscription_keys text[],
  p_fence_owner text, p_fence_token bigint, p_release boolean,
  p_claim_owner text, p_claim_expires_at double precision,
  p_log bytea, p_keep_last integer,
  p_lock_key text, p_build_version integer`;

/** The instance row's columns the put sets, as version 5's UPDATE sets them (the lease columns aside). */
const UPDATED_COLUMNS = `latest_seq = p_seq, definition_digest = p_definition_digest, status = p_status,
        process_id = p_process_id, definition_id = p_definition_id, business_key = p_business_key,
        parent_id = p_parent_id, call_node_id = p_call_node_id, due_at = p_due_at, ended_at = p_ended_at,
        root_id = v_root`;

const INSERTED_COLUMNS = `instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        business_key, parent_id, call_node_id, due_at, ended_at, root_id`;

const INSERTED_VALUES = `p_instance_id, p_seq, p_definition_digest, p_status, p_process_id, p_definition_id,
        p_business_key, p_parent_id, p_call_node_id, p_due_at, p_ended_at, v_root`;

/** `put_checkpoint`, without or (`seen`) with the deployments a new instance was chosen among. */
function putCheckpointFunction(seen: boolean): string {
  return `
CREATE OR REPLACE FUNCTION {schema}.put_checkpoint(${PARAMETERS}${seen ? ', p_deployments_seen bigint' : ''},
  OUT outcome text, OUT schema_version integer, OUT claimed_token bigint, OUT claimed_expires_at double precision)
LANGUAGE plpgsql VOLATILE AS $put$
DECLARE
  v_found boolean;
  v_latest bigint;
  v_parent text;
  v_root text;
  v_owner text;
  v_token bigint;
  v_oldest_kept bigint;
BEGIN
  -- The schema fence (schema-fence.ts): the migration lock shared, then the version in a statement of its
  -- own, whose fresh snapshot sees a migration that committed while the lock was awaited.
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_lock_key, 0));
  SELECT MAX(m.version) INTO schema_version FROM {schema}.schema_migrations m;
  IF schema_version > p_build_version THEN
    outcome := 'upgraded';
    RETURN;
  END IF;
  outcome := 'fallback';
${
  seen
    ? `
  -- The deployments rule (checkDeploymentsSeen), left to the full path, which applies it to a new instance
  -- only (a stored one is a replay or a conflict, which the full path decides too).
  IF (SELECT count(*) FROM {schema}.deployments) > p_deployments_seen THEN
    RETURN;
  END IF;
`
    : ''
}
  -- The lock every writer of the instance queues on.
  SELECT i.latest_seq, i.parent_id, i.root_id, i.lease_owner, i.lease_token
    INTO v_latest, v_parent, v_root, v_owner, v_token
    FROM {schema}.instances i WHERE i.instance_id = p_instance_id FOR UPDATE;
  v_found := FOUND;

  -- A parent newly linked (parentToCheck) must be stored (checkParentStored), and gives the root
  -- (rootIdOf); a link kept keeps the stored root, so it stays as it was when an ancestor is deleted.
  IF NOT v_found OR v_parent IS DISTINCT FROM p_parent_id THEN
    IF p_parent_id IS NULL THEN
      v_root := p_instance_id;
    ELSE
      SELECT p.root_id INTO v_root FROM {schema}.instances p WHERE p.instance_id = p_parent_id;
      IF NOT FOUND THEN
        RETURN;
      END IF;
    END IF;
  END IF;

  IF v_found THEN
    -- The next checkpoint: the fence matches the held lease (checkFence), the parent is the latest seq and
    -- the seq moves forward (decidePut's insert, nothing stored at it); a claim is only for a first put.
    -- (NULL-safe throughout: a NULL condition would count as passed.)
    IF p_claim_owner IS NOT NULL OR p_parent_seq IS DISTINCT FROM v_latest OR p_seq <= v_latest
      OR v_owner IS DISTINCT FROM p_fence_owner OR v_token IS DISTINCT FROM p_fence_token THEN
      RETURN;
    END IF;
    -- updateInstance, and release's clearing of the lease the fence just matched.
    IF p_release AND p_fence_owner IS NOT NULL THEN
      UPDATE {schema}.instances AS i SET ${UPDATED_COLUMNS},
        lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
      WHERE i.instance_id = p_instance_id;
    ELSE
      UPDATE {schema}.instances AS i SET ${UPDATED_COLUMNS}
      WHERE i.instance_id = p_instance_id;
    END IF;
    DELETE FROM {schema}.subscriptions s WHERE s.instance_id = p_instance_id;
  ELSE
    -- The first checkpoint: no parent seq and no fence (no lease is held on an instance not stored).
    IF p_parent_seq IS NOT NULL OR p_fence_owner IS NOT NULL THEN
      RETURN;
    END IF;
    -- createInstance, holding the claimed lease at once when claim would take it (a running instance with
    -- none). A concurrent creator won if nothing is inserted: the caller decides again under its row lock.
    IF p_claim_owner IS NOT NULL AND p_status = 'running' THEN
      INSERT INTO {schema}.instances AS i (${INSERTED_COLUMNS}, lease_owner, lease_token, lease_expires_at)
      VALUES (${INSERTED_VALUES}, p_claim_owner, nextval('{schema}.lease_tokens'), p_claim_expires_at)
      ON CONFLICT (instance_id) DO NOTHING
      RETURNING i.lease_token, i.lease_expires_at INTO claimed_token, claimed_expires_at;
    ELSE
      INSERT INTO {schema}.instances AS i (${INSERTED_COLUMNS})
      VALUES (${INSERTED_VALUES})
      ON CONFLICT (instance_id) DO NOTHING;
    END IF;
    IF NOT FOUND THEN
      RETURN;
    END IF;
  END IF;

  IF cardinality(p_subscription_names) > 0 THEN
    INSERT INTO {schema}.subscriptions (instance_id, ord, name, key)
      SELECT p_instance_id, u.ord - 1, u.name, u.key
      FROM unnest(p_subscription_names, p_subscription_keys) WITH ORDINALITY AS u(name, key, ord);
  END IF;
  INSERT INTO {schema}.checkpoints (instance_id, seq, parent_seq, schema, definition_digest, digest, document)
    VALUES (p_instance_id, p_seq, p_parent_seq, p_schema, p_definition_digest, p_digest, p_document);
  IF p_log IS NOT NULL THEN
    INSERT INTO {schema}.log (instance_id, seq, entry) VALUES (p_instance_id, p_seq, p_log);
  END IF;
  -- The put's pruning (prune's rules): the checkpoints older than the keep_last-th latest go, journals first.
  IF p_keep_last IS NOT NULL AND v_found THEN
    SELECT k.seq INTO v_oldest_kept FROM {schema}.checkpoints k WHERE k.instance_id = p_instance_id
      ORDER BY k.seq DESC LIMIT 1 OFFSET p_keep_last - 1;
    IF v_oldest_kept IS NOT NULL THEN
      DELETE FROM {schema}.writes w WHERE w.instance_id = p_instance_id AND w.seq < v_oldest_kept;
      DELETE FROM {schema}.checkpoints c WHERE c.instance_id = p_instance_id AND c.seq < v_oldest_kept;
    END IF;
  END IF;
  outcome := 'stored';
END
$put$;
`;
}

/** Migration 11's SQL: `put_checkpoint` with ended_at, the log entry and keep_last, both signatures. */
export const PUT_CHECKPOINT_LOGGED_FUNCTIONS = putCheckpointFunction(false) + putCheckpointFunction(true);
