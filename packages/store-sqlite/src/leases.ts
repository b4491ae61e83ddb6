/**
 * Leases on SQLite: the held lease lives on the instance row (`lease_owner`, `lease_token`, `lease_expires_at`,
 * NULL while none is held); tokens come from the store-wide `sequences` row `lease_token`. `claim` and `renew`
 * run inside the BEGIN IMMEDIATE transaction the repository opens, so no other connection or process claims,
 * renews or writes between their read and their write.
 */
import { type ClaimOptions, isStorableText, type Lease, type PutCheckpoint } from '@thresher/checkpoint';
import { checkRenew, type HeldLease } from '@thresher/checkpoint/store-kit';
import { type ClaimableRow, heldLease, type LeaseRow, leaseParams } from './rows.js';
import type { Statements } from './statements.js';

/** The lease held on an instance, undefined when none is. */
export function readHeldLease(sql: Statements, instanceId: string): HeldLease | undefined {
  return heldLease(sql.selectLease.get(instanceId) as LeaseRow | undefined);
}

/** `claim`: running instances with no lease or a lapsed one, in id order, each with the next token. */
export function claimLeases(sql: Statements, options: ClaimOptions): Lease[] {
  const { owner, ttlMs, now, limit } = options;
  // No lease has an owner SQLite cannot keep, so such owners hold nothing to take over.
  const takeOver = JSON.stringify((options.takeOver ?? []).filter(isStorableText));
  let rows: ClaimableRow[];
  const lapsed = options.lapsedOnly === true;
  if (options.instanceIds === undefined) {
    const select = lapsed ? sql.selectLapsed : sql.selectClaimable;
    rows = select.all({ now, limit, takeOver }) as ClaimableRow[];
  } else {
    // Nothing stored has an id SQLite cannot keep, so such ids cannot be claimed.
    const ids = JSON.stringify(options.instanceIds.filter(isStorableText));
    const select = lapsed ? sql.selectLapsedAmong : sql.selectClaimableAmong;
    rows = select.all({ ids, now, limit, takeOver }) as ClaimableRow[];
  }
  if (rows.length === 0) return [];
  // The batch's tokens in one step of the sequence, handed out in id order; the rows in one statement.
  const { value: last } = sql.takeLeaseTokens.get(rows.length) as { value: number };
  const first = last - rows.length + 1;
  const expiresAt = now + ttlMs;
  const ids = rows.map(({ instance_id }) => instance_id);
  sql.setLeases.run({ owner, first, expires_at: expiresAt, ids: JSON.stringify(ids) });
  return rows.map(({ instance_id: instanceId, lease_owner: held }, index) => {
    const lease: Lease = { instanceId, owner, token: first + index, expiresAt };
    if (held !== null) lease.takenFrom = held;
    return lease;
  });
}

/** A new lease on an instance, with the store's next token; stored with the instance row by the caller. */
export function nextLease(sql: Statements, instanceId: string, owner: string, expiresAt: number): Lease {
  const { value: token } = sql.takeLeaseTokens.get(1) as { value: number };
  return { instanceId, owner, token, expiresAt };
}

/** `count` more values of the store-wide token sequence, committed by the caller's transaction: the last of them. */
export function reserveLeaseTokens(sql: Statements, count: number): number {
  return (sql.takeLeaseTokens.get(count) as { value: number }).value;
}

/** `release`: the lease goes when the caller still holds it, and is left alone otherwise. */
export function releaseLease(sql: Statements, lease: Lease): void {
  sql.releaseLease.run(lease.instanceId, lease.owner, lease.token);
}

/** Tokens a repository reserves from the store-wide sequence at once, for the first puts of instances. */
export const CREATE_TOKEN_BLOCK = 1024;

/**
 * Fencing tokens for leases taken by an instance's first put (`put` with `claim`), drawn from a block this
 * connection reserved from the store-wide sequence in a transaction of its own, so the put's transaction
 * writes no sequence page. Every other lease (claim, a claim with a later put) takes the sequence's next
 * value, which is past every reserved block: an instance's tokens still strictly increase, and no token is
 * handed out twice. A token not used (the put was not a first one, or failed) is skipped, as on a rollback.
 */
export class CreateTokens {
  #next = 1;
  #last = 0;

  /** `reserve(count)` commits `count` more values of the sequence and returns the last of them. */
  constructor(private readonly reserve: (count: number) => number) {}

  /** The next token of the block, reserving a new block when this one is used up. */
  take(): number {
    if (this.#next > this.#last) {
      this.#last = this.reserve(CREATE_TOKEN_BLOCK);
      this.#next = this.#last - CREATE_TOKEN_BLOCK + 1;
    }
    return this.#next++;
  }
}

/** A new lease on a stored instance, with the store's next token. */
function takeLease(sql: Statements, instanceId: string, owner: string, expiresAt: number): Lease {
  const lease = nextLease(sql, instanceId, owner, expiresAt);
  sql.setLease.run(leaseParams(lease));
  return lease;
}

/**
 * What a put's `claim` or `release` does once it is stored, where the put's own row write did not do it (a
 * replay, or a claim on an instance that was stored before).
 */
export function leaseWithPut(sql: Statements, checkpoint: PutCheckpoint, released: boolean): Lease | undefined {
  const { instanceId, fence, claim } = checkpoint;
  if (!released && checkpoint.release === true && fence) sql.releaseLease.run(instanceId, fence.owner, fence.token);
  if (!claim) return undefined;
  if (checkpoint.meta.status === 'running' && readHeldLease(sql, instanceId) === undefined) {
    return takeLease(sql, instanceId, claim.owner, claim.now + claim.ttlMs);
  }
  return claimLeases(sql, { ...claim, limit: 1, instanceIds: [instanceId] })[0];
}

/** `renew`: {@link checkRenew} against the held lease, then its new expiry. */
export function renewLease(sql: Statements, lease: Lease, ttlMs: number, now: number): Lease {
  checkRenew(lease, readHeldLease(sql, lease.instanceId));
  const renewed: Lease = {
    instanceId: lease.instanceId,
    owner: lease.owner,
    token: lease.token,
    expiresAt: now + ttlMs,
  };
  sql.renewLease.run(renewed.expiresAt, lease.instanceId, lease.owner, lease.token);
  return renewed;
}
