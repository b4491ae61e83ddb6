import { type Fence, type Lease, LeaseLostError, type PutClaim, type Repository } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import { isGone } from '../base/owners.js';
import type { Telemetry } from '../base/telemetry.js';

/** How long a lease lasts unless `EngineOptions.leaseTtlMs` says. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * Claims are made this many instances at a time (one store transaction each): large, as a commit's cost is
 * mostly per commit (recover() of 10,000 spent 15% of its time in twenty claim commits at 500 each).
 */
const CLAIM_BATCH = 5000;

/**
 * The leases one engine holds: an instance is restored or advanced only under its lease, and every write
 * carries it as a fence, so two engines on one store never both run an instance. A lease is renewed
 * before a write once half its time to live is gone, and by `renewAll` on the engine's interval.
 */
export class Leases {
  private readonly held = new Map<string, Lease>();
  /** Releases on their way to the store: a claim of the same instance waits for them, or would adopt a lease about to go. */
  private readonly releasing = new Map<string, Promise<void>>();
  /**
   * Instances claimed from a holder that stopped without letting go (`Lease.takenFrom`), until restored: what
   * that holder's last write announced may not have been published.
   */
  private readonly overtaken = new Set<string>();
  /**
   * Losses a renewal met while this engine still held the lease. A store may commit a release before a renewal
   * issued earlier (PostgreSQL queues releases apart), which then finds no lease: no loss of a lease let go of.
   */
  private readonly lostWhileHeld = new WeakSet<LeaseLostError>();

  constructor(
    private readonly repository: Repository,
    private readonly clock: Clock,
    readonly owner: string,
    readonly ttlMs: number,
    private readonly telemetry?: Pick<Telemetry, 'leasesClaimed'>,
  ) {}

  holds(instanceId: string): boolean {
    return this.held.has(instanceId);
  }

  /** The fencing token of the lease held on an instance; a new claim after a release has another. */
  tokenOf(instanceId: string): number | undefined {
    return this.held.get(instanceId)?.token;
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * Claim these instances (running ones not held live by another engine; an engine known gone is taken
   * over). Returns the ids now held, this engine's earlier leases included.
   */
  async claim(instanceIds: readonly string[]): Promise<Set<string>> {
    const wanted = instanceIds.filter((id) => !this.held.has(id));
    const pending = wanted.flatMap((id) => this.releasing.get(id) ?? []);
    if (pending.length > 0) await Promise.allSettled(pending);
    for (let at = 0; at < wanted.length; at += CLAIM_BATCH) {
      const batch = wanted.slice(at, at + CLAIM_BATCH);
      this.keep(await this.take(batch));
      const rest = batch.filter((id) => !this.held.has(id));
      if (rest.length === 0) continue;
      const gone = new Set<string>();
      for (const lease of await Promise.all(rest.map((id) => this.repository.lease(id)))) {
        if (lease && isGone(lease.owner)) gone.add(lease.owner);
      }
      if (gone.size > 0) this.keep(await this.take(rest, [...gone]));
    }
    return new Set(instanceIds.filter((id) => this.held.has(id)));
  }

  /**
   * Claim one instance. Resolves `true` when it is held; otherwise the lease another engine holds live on
   * it, or `false` when nobody does (the instance ended, or is not stored). Whether a lease held elsewhere
   * matters is the caller's to judge: an ended instance is read whoever holds it.
   */
  async claimOne(instanceId: string): Promise<true | Lease | false> {
    if ((await this.claim([instanceId])).has(instanceId)) return true;
    const lease = await this.repository.lease(instanceId);
    if (lease?.owner === this.owner) {
      this.held.set(instanceId, lease); // a claim of ours this engine let go of without releasing (a fault)
      this.overtaken.add(instanceId);
      return true;
    }
    return lease !== undefined && lease.expiresAt > this.clock.now() ? lease : false;
  }

  /**
   * Claim up to `limit` instances whose holder stopped renewing (work left behind), or is one of `takeOver`
   * (engines known gone); returns their ids.
   */
  async claimLapsed(limit: number, takeOver: string[] = []): Promise<string[]> {
    const leases = await this.repository.claim({
      owner: this.owner,
      ttlMs: this.ttlMs,
      now: this.clock.now(),
      limit,
      lapsedOnly: true,
      ...(takeOver.length > 0 ? { takeOver } : {}),
    });
    this.keep(leases);
    return leases.map((lease) => lease.instanceId);
  }

  /**
   * Claim up to `limit` of these instances in one store transaction, passing over those another engine
   * holds (or is claiming: PostgreSQL skips locked rows), so that workers looking at the same list share it
   * instead of colliding on its head. Returns the ids claimed.
   */
  async claimSome(instanceIds: readonly string[], limit: number): Promise<string[]> {
    const wanted = instanceIds.filter((id) => !this.held.has(id));
    if (wanted.length === 0 || limit <= 0) return [];
    const leases = await this.repository.claim({
      owner: this.owner,
      ttlMs: this.ttlMs,
      now: this.clock.now(),
      limit,
      instanceIds: wanted,
    });
    this.keep(leases);
    return leases.map((lease) => lease.instanceId);
  }

  /** The fence for a write to an instance: its lease, renewed first once half its time is gone. */
  async fence(instanceId: string): Promise<Fence | undefined> {
    const lease = this.held.get(instanceId);
    if (!lease) return undefined;
    const now = this.clock.now();
    if (lease.expiresAt - now > this.ttlMs / 2) return lease;
    return this.renew(lease, now);
  }

  /**
   * Renew every held lease; resolves to the instances whose lease another engine took. A renewal that
   * failed otherwise (the store unreachable) is tried again next time; the next write's fence tells.
   */
  async renewAll(): Promise<Array<{ instanceId: string; error: LeaseLostError }>> {
    const now = this.clock.now();
    const lost: Array<{ instanceId: string; error: LeaseLostError }> = [];
    await Promise.all(
      [...this.held.values()].map((lease) =>
        this.renew(lease, now).catch((error: unknown) => {
          if (error instanceof LeaseLostError && this.lostWhileHeld.has(error)) {
            lost.push({ instanceId: lease.instanceId, error });
          }
        }),
      ),
    );
    return lost;
  }

  /** Let go of an instance's lease so another engine may claim it at once. */
  async release(instanceId: string): Promise<void> {
    const lease = this.held.get(instanceId);
    if (!lease) return;
    this.held.delete(instanceId);
    this.overtaken.delete(instanceId);
    const released = this.repository.release(lease);
    const done = released.then(
      () => undefined,
      () => undefined,
    );
    this.releasing.set(instanceId, done);
    void done.then(() => {
      if (this.releasing.get(instanceId) === done) this.releasing.delete(instanceId);
    });
    await released;
  }

  /** What a new instance's first put claims its lease with (`PutCheckpoint.claim`). */
  putClaim(): PutClaim {
    return { owner: this.owner, ttlMs: this.ttlMs, now: this.clock.now() };
  }

  /** Hold a lease a put took. */
  adopt(lease: Lease): void {
    this.held.set(lease.instanceId, lease);
  }

  /** Forget a lease without telling the store: another engine took it over, or the put that ended it released it. */
  forget(instanceId: string): void {
    this.held.delete(instanceId);
    this.overtaken.delete(instanceId);
  }

  /** Release every held lease but those of `keep`, which are forgotten here and left to lapse. */
  async releaseAll(keep: ReadonlySet<string> = new Set()): Promise<void> {
    const leases = [...this.held.values()].filter((lease) => !keep.has(lease.instanceId));
    this.held.clear();
    await Promise.allSettled(leases.map((lease) => this.repository.release(lease)));
  }

  private async renew(lease: Lease, now: number): Promise<Lease> {
    try {
      const renewed = await this.repository.renew(lease, this.ttlMs, now);
      if (this.held.get(lease.instanceId)?.token === renewed.token) this.held.set(lease.instanceId, renewed);
      return renewed;
    } catch (error) {
      if (error instanceof LeaseLostError && this.held.get(lease.instanceId)?.token === lease.token) {
        this.held.delete(lease.instanceId);
        this.lostWhileHeld.add(error);
      }
      throw error;
    }
  }

  private take(instanceIds: string[], takeOver?: string[]): Promise<Lease[]> {
    return this.repository.claim({
      owner: this.owner,
      ttlMs: this.ttlMs,
      now: this.clock.now(),
      limit: instanceIds.length,
      instanceIds,
      ...(takeOver ? { takeOver } : {}),
    });
  }

  private keep(leases: Lease[]): void {
    this.telemetry?.leasesClaimed(leases.length);
    for (const { takenFrom, ...lease } of leases) {
      this.held.set(lease.instanceId, lease);
      if (takenFrom !== undefined) this.overtaken.add(lease.instanceId);
    }
  }

  /**
   * Whether this engine took the instance over from a holder that stopped without letting go (and had not
   * asked since): its restore then publishes the last checkpoint's events again. Asking forgets it.
   */
  takenOver(instanceId: string): boolean {
    return this.overtaken.delete(instanceId);
  }
}
