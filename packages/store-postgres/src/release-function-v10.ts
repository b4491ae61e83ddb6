/**
 * The SQL of schema version 10: `release_leases`, a lone release in one statement (one round trip where a
 * fenced transaction took three) that commits without waiting for the WAL flush. A release records no step:
 * it is visible at once, and the next flushed commit — any later write of the server — makes it durable (its
 * commit record comes first in the WAL). Lost to a server crash before then, it leaves the lease held until it
 * lapses or its holder is known gone, as a crash right before the release would (Repository.release).
 *
 * Migrations are append-only: this text is that migration's and never changes; a later change to the
 * function is a new migration.
 */
export const RELEASE_LEASES_FUNCTION = `
CREATE OR REPLACE FUNCTION {schema}.release_leases(p_instance_ids text[], p_owners text[], p_tokens bigint[],
  p_lock_key text, p_build_version integer, OUT outcome text, OUT schema_version integer)
LANGUAGE plpgsql VOLATILE AS $release$
BEGIN
  -- The schema fence, as put_checkpoint takes it: the migration lock shared, then the version read by a
  -- statement of its own, whose snapshot sees a migration that committed while the lock was awaited.
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_lock_key, 0));
  SELECT MAX(m.version) INTO schema_version FROM {schema}.schema_migrations m;
  IF schema_version > p_build_version THEN
    outcome := 'upgraded';
    RETURN;
  END IF;
  -- For this transaction only: its commit does not wait for the WAL flush.
  PERFORM set_config('synchronous_commit', 'off', true);
  -- Each lease only while it is the one held (owner and token), as release does.
  UPDATE {schema}.instances AS i SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
    FROM unnest(p_instance_ids, p_owners, p_tokens) AS r(instance_id, owner, token)
    WHERE i.instance_id = r.instance_id AND i.lease_owner = r.owner AND i.lease_token = r.token;
  outcome := 'released';
END
$release$;
`;
