/**
 * The SQL of schema version 5: `put_checkpoint`, a PL/pgSQL function that stores the common `put` (an
 * instance's first checkpoint, or the next one under the held lease) in one statement, so one round trip.
 * Migrations are append-only: this text is that migration's and never changes; a later change to the
 * function is a new migration (which must keep this signature working for processes of this build).
 *
 * It applies the same rules as `putCheckpoint` and `leaseWithPut` (checkpoints.ts, leases.ts), but only
 * where they store something: whenever a rule would refuse, replay or needs a second look, it writes nothing
 * and answers 'fallback', and the caller runs those in a fenced transaction, which produces the exact error.
 */

/**
 * Parameters, in order (`putFunctionParams` in rows.ts binds them): the checkpoint row (instance id, seq,
 * parent seq, schema, definition digest, digest, document), the indexed meta (status, process id, definition
 * id, business key, parent id, call node id, due at), the subscriptions (names, keys), the fence (owner and
 * token, both NULL for none), release, the claim (owner and expiry, both NULL for none), the migration lock
 * key and the schema version of the calling build.
 *
 * Answers one row: `outcome` 'stored' (with the claimed lease's token and expiry, NULL when none was taken),
 * 'upgraded' (with the schema's newer `schema_version`; nothing written) or 'fallback' (nothing written).
 */
export const PUT_CHECKPOINT_FUNCTION = `
CREATE FUNCTION {schema}.put_checkpoint(
  p_instance_id text, p_seq bigint, p_parent_seq bigint, p_schema integer, p_definition_digest text,
  p_digest text, p_document bytea,
  p_status text, p_process_id text, p_definition_id text, p_business_key text, p_parent_id text,
  p_call_node_id text, p_due_at double precision,
  p_subscription_names text[], p_subscription_keys text[],
  p_fence_owner text, p_fence_token bigint, p_release boolean,
  p_claim_owner text, p_claim_expires_at double precision,
  p_lock_key text, p_build_version integer,
  OUT outcome text, OUT schema_version integer, OUT claimed_token bigint, OUT claimed_expires_at double precision)
LANGUAGE plpgsql VOLATILE AS $put$
DECLARE
  v_found boolean;
  v_latest bigint;
  v_parent text;
  v_owner text;
  v_token bigint;
  v_claiming boolean := p_claim_owner IS NOT NULL AND p_status = 'running';
  v_releasing boolean := p_release AND p_fence_owner IS NOT NULL;
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

  -- The lock every writer of the instance queues on.
  SELECT i.latest_seq, i.parent_id, i.lease_owner, i.lease_token INTO v_latest, v_parent, v_owner, v_token
    FROM {schema}.instances i WHERE i.instance_id = p_instance_id FOR UPDATE;
  v_found := FOUND;

  -- The parent link rule (parentToCheck, checkParentStored): a parent newly linked must be stored.
  IF p_parent_id IS NOT NULL AND (NOT v_found OR v_parent IS DISTINCT FROM p_parent_id)
    AND NOT EXISTS (SELECT 1 FROM {schema}.instances p WHERE p.instance_id = p_parent_id) THEN
    RETURN;
  END IF;

  IF v_found THEN
    -- The next checkpoint: the fence matches the held lease (checkFence), the parent is the latest seq and
    -- the seq moves forward (decidePut's insert, nothing stored at it); a claim is only for a first put.
    -- (NULL-safe throughout: a NULL condition would count as passed.) The lease columns are all NULL or
    -- none; so are the fence's two.
    IF p_claim_owner IS NOT NULL OR p_parent_seq IS DISTINCT FROM v_latest OR p_seq <= v_latest
      OR v_owner IS DISTINCT FROM p_fence_owner OR v_token IS DISTINCT FROM p_fence_token THEN
      RETURN;
    END IF;
    -- updateInstance, and release's clearing of the lease the fence just matched.
    UPDATE {schema}.instances AS i SET latest_seq = p_seq, definition_digest = p_definition_digest,
      status = p_status, process_id = p_process_id, definition_id = p_definition_id,
      business_key = p_business_key, parent_id = p_parent_id, call_node_id = p_call_node_id, due_at = p_due_at,
      root_id = CASE WHEN i.parent_id IS NOT DISTINCT FROM p_parent_id THEN i.root_id
        ELSE COALESCE((SELECT p.root_id FROM {schema}.instances p WHERE p.instance_id = p_parent_id),
          p_parent_id, p_instance_id) END,
      lease_owner = CASE WHEN v_releasing THEN NULL ELSE i.lease_owner END,
      lease_token = CASE WHEN v_releasing THEN NULL ELSE i.lease_token END,
      lease_expires_at = CASE WHEN v_releasing THEN NULL ELSE i.lease_expires_at END
    WHERE i.instance_id = p_instance_id;
    DELETE FROM {schema}.subscriptions s WHERE s.instance_id = p_instance_id;
  ELSE
    -- The first checkpoint: no parent seq and no fence (no lease is held on an instance not stored).
    IF p_parent_seq IS NOT NULL OR p_fence_owner IS NOT NULL THEN
      RETURN;
    END IF;
    -- createInstance, holding the claimed lease at once when claim would take it (a running instance with
    -- none). A concurrent creator won if nothing is inserted: the caller decides again under its row lock
    -- (the token drawn then is skipped, as on any rollback; tokens only need to increase).
    INSERT INTO {schema}.instances AS i (instance_id, latest_seq, definition_digest, status, process_id,
      definition_id, business_key, parent_id, call_node_id, due_at, root_id,
      lease_owner, lease_token, lease_expires_at)
    VALUES (p_instance_id, p_seq, p_definition_digest, p_status, p_process_id, p_definition_id,
      p_business_key, p_parent_id, p_call_node_id, p_due_at,
      COALESCE((SELECT p.root_id FROM {schema}.instances p WHERE p.instance_id = p_parent_id),
        p_parent_id, p_instance_id),
      CASE WHEN v_claiming THEN p_claim_owner END,
      CASE WHEN v_claiming THEN nextval('{schema}.lease_tokens') END,
      CASE WHEN v_claiming THEN p_claim_expires_at END)
    ON CONFLICT (instance_id) DO NOTHING
    RETURNING i.lease_token, i.lease_expires_at INTO claimed_token, claimed_expires_at;
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
  outcome := 'stored';
END
$put$;
`;
