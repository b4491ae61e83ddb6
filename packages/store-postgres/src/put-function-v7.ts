/**
 * Migrations are append-only: this text is schema version 7's and never changes; version 8 replaces the
 * function's body (put-function-v8.ts), and a later change to it is a new migration.
 */

/**
 * The SQL of schema version 7: `put_checkpoint` with the deployments a new instance was chosen among
 * (`deploymentsSeen`) as a 24th parameter, after the 23 of version 5. A put that sees more deployments
 * stored writes nothing and answers 'fallback' (the caller's full path refuses it with
 * `StaleDeploymentsError`, or stores a replay); any other put is version 5's, as is every put without the
 * deployments seen, which is sent to version 5's signature. That signature stays, for processes of that build.
 */
export const PUT_CHECKPOINT_SEEN_FUNCTION = `
CREATE FUNCTION {schema}.put_checkpoint(
  p_instance_id text, p_seq bigint, p_parent_seq bigint, p_schema integer, p_definition_digest text,
  p_digest text, p_document bytea,
  p_status text, p_process_id text, p_definition_id text, p_business_key text, p_parent_id text,
  p_call_node_id text, p_due_at double precision,
  p_subscription_names text[], p_subscription_keys text[],
  p_fence_owner text, p_fence_token bigint, p_release boolean,
  p_claim_owner text, p_claim_expires_at double precision,
  p_lock_key text, p_build_version integer, p_deployments_seen bigint,
  OUT outcome text, OUT schema_version integer, OUT claimed_token bigint, OUT claimed_expires_at double precision)
LANGUAGE plpgsql VOLATILE AS $put$
BEGIN
  -- The deployments rule (checkDeploymentsSeen), left to the full path, which applies it to a new instance
  -- only (a stored one is a replay or a conflict, which the full path decides too).
  IF (SELECT count(*) FROM {schema}.deployments) > p_deployments_seen THEN
    outcome := 'fallback';
    RETURN;
  END IF;
  SELECT f.outcome, f.schema_version, f.claimed_token, f.claimed_expires_at
    INTO outcome, schema_version, claimed_token, claimed_expires_at
    FROM {schema}.put_checkpoint(p_instance_id, p_seq, p_parent_seq, p_schema, p_definition_digest, p_digest,
      p_document, p_status, p_process_id, p_definition_id, p_business_key, p_parent_id, p_call_node_id, p_due_at,
      p_subscription_names, p_subscription_keys, p_fence_owner, p_fence_token, p_release, p_claim_owner,
      p_claim_expires_at, p_lock_key, p_build_version) AS f;
END
$put$;
`;
