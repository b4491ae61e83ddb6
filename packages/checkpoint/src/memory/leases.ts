/**
 * Leases in memory: a held lease lives on its instance's entry, and tokens come from the store-wide
 * `lastToken`. Arguments and rules are checked before any lease changes.
 */
import { checkClaimArguments } from '../input-rules.js';
import { checkLeaseArguments, checkRenew, compareCodePoints, isClaimable } from '../put-rules.js';
import type { ClaimOptions, Lease } from '../repository.js';
import type { MemoryState } from './state.js';

export function claimLeases(state: MemoryState, options: ClaimOptions): Lease[] {
  checkClaimArguments(options);
  const { owner, ttlMs, now, limit } = options;
  const wanted = options.instanceIds === undefined ? undefined : new Set(options.instanceIds);
  const candidates: string[] = [];
  for (const [instanceId, instance] of state.instances) {
    if (options.lapsedOnly ? instance.lease === undefined : instance.meta.status !== 'running') continue;
    if (!isClaimable(instance.lease, now, options.takeOver)) continue;
    if (wanted !== undefined && !wanted.has(instanceId)) continue;
    candidates.push(instanceId);
  }
  candidates.sort(compareCodePoints);
  return candidates.slice(0, limit).map((instanceId) => {
    const lease: Lease = { instanceId, owner, token: ++state.lastToken, expiresAt: now + ttlMs };
    state.instances.get(instanceId)!.lease = { owner, token: lease.token, expiresAt: lease.expiresAt };
    return lease;
  });
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
