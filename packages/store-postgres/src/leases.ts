/**
 * Leases on PostgreSQL: the held lease lives on the instance row (`lease_owner`, `lease_token`,
 * `lease_expires_at`), the row every writer already locks, and tokens come from the store-wide
 * `lease_tokens` sequence.
 */
import {
  type ClaimOptions,
  type Fence,
  isStorableText,
  type Lease,
  LeaseLostError,
  type PutCheckpoint,
} from '@thresher/checkpoint';
import { assertStoreNotUpgraded, checkFence, checkRenew } from '@thresher/checkpoint/store-kit';
import type { PgQueryable } from './driver.js';
import type { Joinable } from './group-commit.js';
import { SCHEMA_VERSION } from './migrations.js';
import { type ClaimedRow, heldLease, type LockedInstanceRow, toLease } from './rows.js';
import type { PutFunctionCall, Statements } from './statements.js';

/**
 * Lock the instance's row (waiting for its other writers) and apply the fence rule to the lease held on it;
 * the row, undefined when the instance does not exist (so no lease is held).
 */
export async function lockAndFence(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  fence: Fence | undefined,
): Promise<LockedInstanceRow | undefined> {
  const { rows } = await client.query<LockedInstanceRow>(sql.lockInstance, [instanceId]);
  checkFence(instanceId, fence, heldLease(rows[0]));
  return rows[0];
}

/**
 * `claim` in one statement: running instances with no lease or a lapsed one, in id order, `FOR UPDATE SKIP
 * LOCKED` (concurrent claimers pass over each other's rows), each with the sequence's next token.
 */
export async function claimLeases(db: PgQueryable, sql: Statements, options: ClaimOptions): Promise<Lease[]> {
  const { owner, ttlMs, now, limit } = options;
  // Ids PostgreSQL cannot hold are not stored, so they are skipped like any id the store does not have.
  const among = options.instanceIds?.filter((id) => isStorableText(id));
  if (limit === 0 || among?.length === 0) return [];
  const expiresAt = now + ttlMs;
  const takeOver = (options.takeOver ?? []).filter((name) => isStorableText(name));
  const { rows } = await db.query<ClaimedRow>(sql.claim, [
    owner,
    now,
    limit,
    among ?? null,
    expiresAt,
    takeOver,
    options.lapsedOnly === true,
  ]);
  return rows.map((row) => toLease(row, owner));
}

/** What a put's `claim` or `release` does, in the put's transaction once it is stored. */
export async function leaseWithPut(
  db: PgQueryable,
  sql: Statements,
  checkpoint: PutCheckpoint,
): Promise<Lease | undefined> {
  const { instanceId, fence, claim } = checkpoint;
  if (checkpoint.release === true && fence) await db.query(sql.releaseLease, [instanceId, fence.owner, fence.token]);
  if (!claim) return undefined;
  return (await claimLeases(db, sql, { ...claim, limit: 1, instanceIds: [instanceId] }))[0];
}

/** The held lease of an instance, live or lapsed; undefined when none is held or it is not stored. */
export async function readLease(db: PgQueryable, sql: Statements, instanceId: string): Promise<Lease | undefined> {
  const { rows } = await db.query<LockedInstanceRow>(sql.selectLease, [instanceId]);
  const held = heldLease(rows[0]);
  return held === undefined ? undefined : { instanceId, ...held };
}

/**
 * `renew`: the new expiry written in one statement where the held lease is this one. Refused, nothing is
 * written and the refusal is returned, not thrown ({@link checkRenew} on the lease then held names why), so a
 * group-committed batch holding it commits the others rather than rolling back.
 */
export async function renewLease(
  client: PgQueryable,
  sql: Statements,
  lease: Lease,
  ttlMs: number,
  now: number,
): Promise<Lease | LeaseLostError> {
  const expiresAt = now + ttlMs;
  const { rowCount } = await client.query(sql.renewLease, [lease.instanceId, lease.owner, lease.token, expiresAt]);
  if (rowCount === 1) return { instanceId: lease.instanceId, owner: lease.owner, token: lease.token, expiresAt };
  const { rows } = await client.query<LockedInstanceRow>(sql.selectLease, [lease.instanceId]);
  const held = heldLease(rows[0]);
  try {
    checkRenew(lease, held);
  } catch (error) {
    if (error instanceof LeaseLostError) return error;
    throw error;
  }
  // Held by this very lease, yet not renewed: a token is never handed out twice, so it cannot come back.
  return new LeaseLostError(lease.instanceId, lease.owner, lease.token, 'the lease changed while it was renewed');
}

/** A release as the release queue joins it with its neighbours (`releaseUnflushed` of them all). */
export interface JoinedRelease extends Joinable {
  readonly lease: Lease;
}

export function joinedRelease(lease: Lease): JoinedRelease {
  return { key: lease.instanceId, bytes: 0, lease };
}

/**
 * Releases of different instances in one statement (`release_leases`, release-function-v10.ts), each clearing
 * its instance's lease only while that lease is the one it names (owner and token): behind the schema fence as
 * `call` takes it, committed without waiting for the WAL flush (Repository.release: the next flushed commit
 * makes it durable).
 *
 * @throws StoreUpgradedError (via `assertStoreNotUpgraded`) when a newer build migrated the schema
 */
export async function releaseUnflushed(
  db: PgQueryable,
  sql: Statements,
  leases: readonly Lease[],
  call: Pick<PutFunctionCall, 'lockKey' | 'where'>,
): Promise<undefined[]> {
  const { rows } = await db.query<{ outcome: string; schema_version: number | string }>(sql.releaseUnflushed, [
    leases.map((lease) => lease.instanceId),
    leases.map((lease) => lease.owner),
    leases.map((lease) => lease.token),
    call.lockKey,
    SCHEMA_VERSION,
  ]);
  if (rows[0]?.outcome === 'upgraded')
    assertStoreNotUpgraded(call.where, Number(rows[0].schema_version), SCHEMA_VERSION);
  return leases.map(() => undefined);
}
