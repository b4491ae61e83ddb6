/**
 * Leases in memory: a held lease lives on its instance's entry, and tokens come from the store-wide
 * `lastToken`. Arguments and rules are checked before any lease changes.
 */
import { checkClaimArguments } from '../input-rules.js';
import { checkLeaseArguments, checkRenew, compareCodePoints, isClaimable } from '../put-rules.js';
import type { ClaimOptions, Lease, PutCheckpoint } from '../repository-types.js';
import type { MemoryState } from './state.js';

export function claimLeases(state: MemoryState, options: ClaimOptions): Lease[] {
  checkClaimArguments(options);
  const { owner, ttlMs, now, limit } = options;
  // Only the instances asked for, when they are named: a claim of one instance costs one lookup.
  const ids = options.instanceIds === undefined ? state.instances.keys() : new Set(options.instanceIds);
  const candidates: string[] = [];
  for (const instanceId of ids) {
    const instance = state.instances.get(instanceId);
    if (instance === undefined) continue;
    if (options.lapsedOnly ? instance.lease === undefined : instance.meta.status !== 'running') continue;
    if (!isClaimable(instance.lease, now, options.takeOver)) continue;
    candidates.push(instanceId);
  }
  candidates.sort(compareCodePoints);
  return candidates.slice(0, limit).map((instanceId) => {
    const instance = state.instances.get(instanceId)!;
    const lease: Lease = { instanceId, owner, token: ++state.lastToken, expiresAt: now + ttlMs };
    if (instance.lease !== undefined) lease.takenFrom = instance.lease.owner;
    instance.lease = { owner, token: lease.token, expiresAt: lease.expiresAt };
    return lease;
  });
}

/** What a put's `claim` or `release` does, once the put is stored: as `claim` or `release` would. */
export function leaseWithPut(state: MemoryState, checkpoint: PutCheckpoint): Lease | undefined {
  const { instanceId, fence, claim } = checkpoint;
  if (checkpoint.release === true && fence) releaseLease(state, { instanceId, ...fence, expiresAt: 0 });
  if (!claim) return undefined;
  return claimLeases(state, { ...claim, limit: 1, instanceIds: [instanceId] })[0];
}

export function renewLease(state: MemoryState, lease: Lease, ttlMs: number, now: number): Lease {
  checkLeaseArguments({ ttlMs, now });
  const instance = state.instances.get(lease.instanceId);
  checkRenew(lease, instance?.lease);
  const renewed: Lease = {
    instanceId: lease.instanceId,
    owner: lease.owner,
    token: lease.token,
    expiresAt: now + ttlMs,
  };
  instance!.lease = { owner: renewed.owner, token: renewed.token, expiresAt: renewed.expiresAt };
  return renewed;
}

export function releaseLease(state: MemoryState, lease: Lease): void {
  const instance = state.instances.get(lease.instanceId);
  if (instance?.lease?.owner === lease.owner && instance.lease.token === lease.token) delete instance.lease;
}

export function readLease(state: MemoryState, instanceId: string): Lease | undefined {
  const held = state.instances.get(instanceId)?.lease;
  return held === undefined ? undefined : { instanceId, ...held };
}

export function readLeaseOwners(state: MemoryState): string[] {
  const owners = new Set<string>();
  for (const instance of state.instances.values()) if (instance.lease) owners.add(instance.lease.owner);
  return [...owners].sort(compareCodePoints);
}
