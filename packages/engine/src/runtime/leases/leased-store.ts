import type {
  BufferedMessage,
  JobOffer,
  Lease,
  PendingWrite,
  PutCheckpoint,
  Repository,
  StoredCheckpoint,
} from '@thresher/checkpoint';
import { InstanceHeldError, NotFoundError } from '../../common/errors.js';
import type { Leases } from './leases.js';

/** How a loop's put stands to the instance's lease. */
export interface PutUnderLease {
  /** The instance's first put while it runs: it claims the lease in the same write. */
  claiming: boolean;
  /** The put that ends the instance, with nothing left to publish: it lets go of the lease in the same write. */
  releasing?: boolean;
}

/**
 * The repository as an instance's loop writes to it: every write under the instance's lease (renewed first
 * when due), so two engines on one store never both advance an instance. A new instance is stored and claimed
 * in one write; an ending one lets go once its last events are published, or in the write that ends it when
 * none is heard (docs/design/leases.md).
 */
export class LeasedStore {
  constructor(
    private readonly repository: Repository,
    private readonly leases: Leases,
  ) {}

  /**
   * Put a checkpoint under the instance's lease. Throws `InstanceHeldError` when a first put was stored but
   * another engine holds the instance (it runs it there). Resolves to whether the put let go of the lease.
   */
  async put(checkpoint: PutCheckpoint, how: PutUnderLease): Promise<boolean> {
    const { instanceId } = checkpoint;
    const fence = await this.leases.fence(instanceId);
    const releasing = fence !== undefined && how.releasing === true;
    const put: PutCheckpoint = fence
      ? { ...checkpoint, fence, ...(releasing ? { release: true } : {}) }
      : how.claiming
        ? { ...checkpoint, claim: this.leases.putClaim() }
        : checkpoint;
    const lease = await this.repository.put(put);
    if (how.claiming) await this.hold(instanceId, lease);
    if (releasing) this.leases.forget(instanceId);
    return releasing;
  }

  /** The checkpoint stored at `seq`: what a loop goes back to when the core refuses a step halfway. */
  read(instanceId: string, seq: number): Promise<StoredCheckpoint | undefined> {
    return this.repository.get(instanceId, seq);
  }

  /** File journal entries against the checkpoint at `seq`, under the instance's lease. */
  async putWrites(instanceId: string, seq: number, writes: PendingWrite[]): Promise<void> {
    await this.repository.putWrites(instanceId, seq, writes, await this.leases.fence(instanceId));
  }

  /** Take a buffered message for the instance (it holds it for the instance alone until deleted). */
  takeMessage(
    names: string | readonly string[],
    key: string | null,
    now: number,
    instanceId: string,
  ): Promise<BufferedMessage | undefined> {
    return this.repository.takeMessage(names, key, now, instanceId);
  }

  /** A taken message was delivered durably: it leaves the buffer. */
  deleteMessage(id: string): Promise<boolean> {
    return this.repository.deleteMessage(id);
  }

  /** Queue a job for workers outside the engine, after the put that made it. */
  offerJob(offer: JobOffer): Promise<boolean> {
    return this.repository.offerJob(offer);
  }

  /** A queued job the instance no longer waits on leaves the queue. */
  withdrawJob(instanceId: string, jobId: string): Promise<boolean> {
    return this.repository.withdrawJob(instanceId, jobId);
  }

  /** The first put stored the instance; hold the lease it claimed before any of its effects leave. */
  private async hold(instanceId: string, lease: Lease | undefined): Promise<void> {
    if (lease) return this.leases.adopt(lease);
    // Taken by a replayed first put's claim elsewhere, or a lease of ours or of a gone engine: as a claim.
    const claimed = await this.leases.claimOne(instanceId);
    if (claimed === true) return;
    if (claimed) throw new InstanceHeldError(instanceId, claimed.owner, claimed.expiresAt);
    throw new NotFoundError('instance', instanceId);
  }
}
