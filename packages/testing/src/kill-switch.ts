import {
  type BufferedMessage,
  type ClaimOptions,
  type DeploymentInput,
  decodeJournalEntry,
  type ExpireOptions,
  type Fence,
  type HistoryQuery,
  type InstanceQuery,
  type JobActivation,
  type JobLock,
  type JobOffer,
  type Lease,
  type ListOptions,
  type LogReader,
  type PendingWrite,
  type PruneOptions,
  type PutCheckpoint,
  type Repository,
  type RewriteCheckpoint,
  type RowBatch,
  type RowPage,
  type RowSearch,
} from '@thresher/checkpoint';

import { ownerGone } from '@thresher/engine';

const never = <T>(): Promise<T> => new Promise<T>(() => {});

/**
 * A repository that dies at a chosen persist point: the `killAt`-th write (a `put`, `rewrite`, `putWrites`,
 * `copy`, `prune` or `putReader`, and a `claim`, `putMessage`, `takeMessage`, `deleteMessage`, `expireMessages`, `offerJob`, `withdrawJob`, `activateJobs`, `relockJob`, `putRows`,
 * `expire` or `deleteReader` that changed something — one that claimed, stored, took or deleted nothing is a read, so arming a subscription
 * with an empty buffer adds no persist point) lands in the store, then it and every later call hang forever,
 * as if the process had been killed right after the commit. The engine above it is then abandoned without
 * any shutdown, and the engines that claimed through it are gone: their leases may be taken over at once.
 * `renew` and `release` change no instance and are no persist points (a renewal runs on real time).
 */
export interface KillSwitch extends Repository {
  /** Writes that reached the store so far (put, rewrite, putWrites, copy, prune and the lease calls). */
  readonly writes: number;
  /** Step identities whose results reached the journal before the kill: they must never run again. */
  readonly durableIdentities: ReadonlySet<string>;
  /** Settles when the kill happens. */
  readonly killed: Promise<void>;
  /** Whether the kill happened: every call since hangs. */
  readonly isDead: boolean;
}

/** `new KillSwitch(inner, killAt)`: `inner` dies after its `killAt`-th write (never, by default). */
export const KillSwitch: new (inner: Repository, killAt?: number) => KillSwitch = class KillSwitchStore
  implements KillSwitch
{
  /** Writes that reached the store so far (put, rewrite, putWrites, copy, prune and the lease calls). */
  writes = 0;
  /** Step identities whose results reached the journal before the kill: they must never run again. */
  readonly durableIdentities = new Set<string>();
  readonly killed: Promise<void>;
  private dead = false;
  /** The engines that claimed through this store: gone with it. */
  private readonly owners = new Set<string>();
  private fire!: () => void;

  constructor(
    private readonly inner: Repository,
    private readonly killAt: number = Number.POSITIVE_INFINITY,
  ) {
    this.killed = new Promise((resolve) => {
      this.fire = resolve;
    });
  }

  get isDead(): boolean {
    return this.dead;
  }

  put(checkpoint: PutCheckpoint): Promise<Lease | undefined> {
    if (checkpoint.claim) this.owners.add(checkpoint.claim.owner);
    return this.write(() => this.inner.put(checkpoint));
  }

  rewrite(checkpoint: RewriteCheckpoint): Promise<void> {
    return this.write(() => this.inner.rewrite(checkpoint));
  }

  putWrites(instanceId: string, seq: number, writes: PendingWrite[], fence?: Fence): Promise<void> {
    return this.write(async () => {
      await this.inner.putWrites(instanceId, seq, writes, fence);
      for (const write of writes) this.durableIdentities.add(decodeJournalEntry(write.value).receipt.identity);
    });
  }

  get(instanceId: string, seq?: number) {
    return this.read(() => this.inner.get(instanceId, seq));
  }

  getMany(instanceIds: readonly string[]) {
    return this.read(() => this.inner.getMany(instanceIds));
  }

  list(instanceId: string, options?: ListOptions) {
    return this.read(() => this.inner.list(instanceId, options));
  }

  leaseOwners() {
    return this.read(() => this.inner.leaseOwners());
  }

  history(query?: HistoryQuery) {
    return this.read(() => this.inner.history(query));
  }

  delete(instanceId: string) {
    return this.read(() => this.inner.delete(instanceId));
  }

  copy(sourceId: string, targetId: string): Promise<void> {
    return this.write(() => this.inner.copy(sourceId, targetId));
  }

  prune(instanceId: string, options: PruneOptions): Promise<void> {
    return this.write(() => this.inner.prune(instanceId, options));
  }

  putReader(reader: LogReader): Promise<void> {
    return this.write(() => this.inner.putReader(reader));
  }

  readers() {
    return this.read(() => this.inner.readers());
  }

  deleteReader(name: string): Promise<boolean> {
    return this.write(
      () => this.inner.deleteReader(name),
      (deleted) => deleted,
    );
  }

  expire(options: ExpireOptions): Promise<string[]> {
    return this.write(
      () => this.inner.expire(options),
      (expired) => expired.length > 0,
    );
  }

  instanceIds(query?: InstanceQuery) {
    return this.read(() => this.inner.instanceIds(query));
  }

  instances(query?: InstanceQuery) {
    return this.read(() => this.inner.instances(query));
  }

  claim(options: ClaimOptions): Promise<Lease[]> {
    this.owners.add(options.owner);
    return this.write(
      () => this.inner.claim(options),
      (leases) => leases.length > 0,
    );
  }

  renew(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    return this.read(() => this.inner.renew(lease, ttlMs, now));
  }

  lease(instanceId: string) {
    return this.read(() => this.inner.lease(instanceId));
  }

  release(lease: Lease): Promise<void> {
    return this.read(() => this.inner.release(lease));
  }

  dueTimers(now: number, limit: number) {
    return this.read(() => this.inner.dueTimers(now, limit));
  }

  subscriptions(name: string, key: string | null) {
    return this.read(() => this.inner.subscriptions(name, key));
  }

  putMessage(message: BufferedMessage): Promise<boolean> {
    return this.write(
      () => this.inner.putMessage(message),
      (stored) => stored,
    );
  }

  takeMessage(name: string, correlationKey: string | null, now: number, taker: string) {
    return this.write(
      () => this.inner.takeMessage(name, correlationKey, now, taker),
      (taken) => taken !== undefined,
    );
  }

  deleteMessage(id: string): Promise<boolean> {
    return this.write(
      () => this.inner.deleteMessage(id),
      (deleted) => deleted,
    );
  }

  expireMessages(now: number): Promise<number> {
    return this.write(
      () => this.inner.expireMessages(now),
      (count) => count > 0,
    );
  }

  offerJob(offer: JobOffer): Promise<boolean> {
    return this.write(
      () => this.inner.offerJob(offer),
      (stored) => stored,
    );
  }

  withdrawJob(instanceId: string, jobId: string): Promise<boolean> {
    return this.write(
      () => this.inner.withdrawJob(instanceId, jobId),
      (withdrawn) => withdrawn,
    );
  }

  activateJobs(activation: JobActivation): Promise<JobLock[]> {
    return this.write(
      () => this.inner.activateJobs(activation),
      (locks) => locks.length > 0,
    );
  }

  relockJob(job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>, timeoutMs: number, now: number) {
    return this.write(
      () => this.inner.relockJob(job, timeoutMs, now),
      (lock) => lock !== undefined,
    );
  }

  jobLock(instanceId: string, jobId: string): Promise<JobLock | undefined> {
    return this.read(() => this.inner.jobLock(instanceId, jobId));
  }

  putRows(batch: RowBatch): Promise<boolean> {
    return this.write(
      () => this.inner.putRows(batch),
      (written) => written,
    );
  }

  projectionPosition(projection: string): Promise<string | null> {
    return this.read(() => this.inner.projectionPosition(projection));
  }

  searchRows(search: RowSearch): Promise<RowPage> {
    return this.read(() => this.inner.searchRows(search));
  }

  putDeployment(deployment: DeploymentInput) {
    return this.read(() => this.inner.putDeployment(deployment));
  }

  getDeployment(digest: string) {
    return this.read(() => this.inner.getDeployment(digest));
  }

  deployments(definitionId?: string) {
    return this.read(() => this.inner.deployments(definitionId));
  }

  async close(): Promise<void> {}

  /** A write; `changed` says whether its result changed the store (when not, it is no persist point). */
  private async write<T>(perform: () => Promise<T>, changed: (result: T) => boolean = () => true): Promise<T> {
    if (this.dead) return never();
    const result = await perform();
    if (!changed(result)) return result;
    this.writes += 1;
    if (this.writes >= this.killAt) {
      this.dead = true;
      for (const owner of this.owners) ownerGone(owner);
      this.fire();
      return never();
    }
    return result;
  }

  private read<T>(perform: () => Promise<T>): Promise<T> {
    return this.dead ? never() : perform();
  }
};
