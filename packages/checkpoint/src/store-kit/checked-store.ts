import { ConflictError } from '../errors.js';
import {
  checkClaimArguments,
  checkDeploymentArguments,
  checkExpireArguments,
  checkMessage,
  checkPutArguments,
  checkReaderArguments,
  checkRewriteArguments,
  checkText,
  checkWritesArguments,
  distinctStorableIds,
  isStorableText,
} from '../input-rules.js';
import { checkJobActivation, checkJobOffer, checkRelock } from '../job-rules.js';
import {
  checkFence,
  checkKeepLast,
  checkLeaseArguments,
  checkMessageClock,
  checkRenew,
  decideCopy,
  messageNames,
} from '../put-rules.js';
import {
  type HistoryRange,
  historyRange,
  instancePage,
  type LogRead,
  logRead,
  storableFilters,
  storableIds,
} from '../read-rules.js';
import type {
  BufferedMessage,
  ClaimOptions,
  Deployment,
  DeploymentInput,
  DueTimer,
  ExpireOptions,
  Fence,
  HistoryQuery,
  InstanceQuery,
  InstanceSummary,
  JobActivation,
  JobLock,
  JobOffer,
  Lease,
  ListOptions,
  LogEntry,
  LogReader,
  PendingWrite,
  PruneOptions,
  PutCheckpoint,
  RewriteCheckpoint,
  StoredCheckpoint,
} from '../repository-types.js';
import { checkRowBatch, checkRowSearch, type RowBatch, type RowPage, type RowSearch } from '../search-rows.js';

/**
 * What a SQL store's front shares: each `Repository` method checks its arguments by the contract's rules, and
 * answers on its own what no database row can change (an id the database cannot hold is stored nowhere), so a
 * store implements only the `…Checked` work, with arguments it can bind. A store still refuses a call once
 * closed, the answered ones included (`assertOpen`).
 */
export abstract class CheckedStore {
  /** Throw the store's refusal when it was closed; `operation` names the call. */
  protected abstract assertOpen(operation: string): void;

  async put(checkpoint: PutCheckpoint): Promise<Lease | undefined> {
    checkPutArguments(checkpoint);
    return this.putChecked(checkpoint);
  }

  async rewrite(checkpoint: RewriteCheckpoint): Promise<void> {
    const { instanceId, seq, fence } = checkpoint;
    checkRewriteArguments(checkpoint);
    // Nothing stored has such an id or digest, so there is no lease and no checkpoint to rewrite.
    if (!isStorableText(instanceId) || !isStorableText(checkpoint.expectedDigest)) {
      this.assertOpen('rewrite');
      if (!isStorableText(instanceId)) checkFence(instanceId, fence, undefined);
      throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to rewrite`);
    }
    return this.rewriteChecked(checkpoint);
  }

  async putWrites(instanceId: string, seq: number, writes: PendingWrite[], fence?: Fence): Promise<void> {
    checkWritesArguments(instanceId, seq, writes);
    return this.putWritesChecked(instanceId, seq, writes, fence);
  }

  async get(instanceId: string, seq?: number): Promise<StoredCheckpoint | undefined> {
    if (!isStorableText(instanceId)) return this.answered('get', undefined);
    return this.getChecked(instanceId, seq);
  }

  async getMany(instanceIds: readonly string[]): Promise<StoredCheckpoint[]> {
    const ids = distinctStorableIds(instanceIds);
    if (ids.length === 0) return this.answered('getMany', []);
    return this.getManyChecked(ids);
  }

  async list(instanceId: string, options: ListOptions = {}): Promise<StoredCheckpoint[]> {
    const range = historyRange(options);
    if (!isStorableText(instanceId)) return this.answered('list', []);
    return this.listChecked(instanceId, range);
  }

  async history(query?: HistoryQuery): Promise<LogEntry[]> {
    const read = logRead(query);
    if (read.instanceId !== null && !isStorableText(read.instanceId)) return this.answered('history', []);
    return this.historyChecked(read);
  }

  async putReader(reader: LogReader): Promise<void> {
    checkReaderArguments(reader);
    return this.putReaderChecked(reader);
  }

  async deleteReader(name: string): Promise<boolean> {
    checkText('name', name);
    return this.deleteReaderChecked(name);
  }

  async expire(options: ExpireOptions): Promise<string[]> {
    checkExpireArguments(options);
    return this.expireChecked(options);
  }

  async delete(instanceId: string): Promise<void> {
    if (!isStorableText(instanceId)) return this.answered('delete', undefined);
    return this.deleteChecked(instanceId);
  }

  async copy(sourceId: string, targetId: string): Promise<void> {
    checkText('targetId', targetId);
    // Nothing stored has such an id, so there is nothing to copy.
    if (!isStorableText(sourceId)) return this.answered('copy', decideCopy(sourceId, targetId, false, null));
    return this.copyChecked(sourceId, targetId);
  }

  async prune(instanceId: string, options: PruneOptions): Promise<void> {
    checkKeepLast(options.keepLast);
    if (!isStorableText(instanceId)) return this.answered('prune', undefined);
    return this.pruneChecked(instanceId, options.keepLast);
  }

  async claim(options: ClaimOptions): Promise<Lease[]> {
    checkClaimArguments(options);
    return this.claimChecked(options);
  }

  async renew(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    checkLeaseArguments({ ttlMs, now });
    // Nothing stored has such an id or owner, so the lease cannot be held.
    if (!isStorableText(lease.instanceId) || !isStorableText(lease.owner)) {
      this.assertOpen('renew');
      checkRenew(lease, undefined);
    }
    return this.renewChecked(lease, ttlMs, now);
  }

  async lease(instanceId: string): Promise<Lease | undefined> {
    if (!isStorableText(instanceId)) return this.answered('lease', undefined);
    return this.leaseChecked(instanceId);
  }

  async release(lease: Lease): Promise<void> {
    if (!isStorableText(lease.instanceId) || !isStorableText(lease.owner)) return this.answered('release', undefined);
    return this.releaseChecked(lease);
  }

  async dueTimers(now: number, limit: number): Promise<DueTimer[]> {
    // Nothing is due at a time that is not one (SQL would order NaN above every timer and return them all).
    if (Number.isNaN(now)) return this.answered('dueTimers', []);
    return this.dueTimersChecked(now, limit);
  }

  async subscriptions(name: string, key: string | null): Promise<string[]> {
    if (!isStorableText(name) || !isStorableText(key)) return this.answered('subscriptions', []);
    return this.subscriptionsChecked(name, key);
  }

  async instances(query: InstanceQuery = {}): Promise<InstanceSummary[]> {
    instancePage(query);
    if (!storableFilters(query)) return this.answered('instances', []);
    return this.instancesChecked(storableIds(query));
  }

  async instanceIds(query: InstanceQuery = {}): Promise<string[]> {
    instancePage(query);
    if (!storableFilters(query)) return this.answered('instanceIds', []);
    return this.instanceIdsChecked(storableIds(query));
  }

  async putMessage(message: BufferedMessage): Promise<boolean> {
    checkMessage(message);
    return this.putMessageChecked(message);
  }

  async takeMessage(
    names: string | readonly string[],
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined> {
    checkMessageClock(now);
    checkText('taker', taker);
    // Nothing stored has such a name or key: those names match nothing.
    const storable = messageNames(names).filter(isStorableText);
    if (storable.length === 0 || !isStorableText(correlationKey)) return this.answered('takeMessage', undefined);
    return this.takeMessageChecked(storable, correlationKey, now, taker);
  }

  async deleteMessage(id: string): Promise<boolean> {
    if (!isStorableText(id)) return this.answered('deleteMessage', false);
    return this.deleteMessageChecked(id);
  }

  async expireMessages(now: number): Promise<number> {
    checkMessageClock(now);
    return this.expireMessagesChecked(now);
  }

  async offerJob(offer: JobOffer): Promise<boolean> {
    checkJobOffer(offer);
    return this.offerJobChecked(offer);
  }

  async withdrawJob(instanceId: string, jobId: string): Promise<boolean> {
    if (!isStorableText(instanceId) || !isStorableText(jobId)) return this.answered('withdrawJob', false);
    return this.withdrawJobChecked(instanceId, jobId);
  }

  async activateJobs(activation: JobActivation): Promise<JobLock[]> {
    checkJobActivation(activation);
    return this.activateJobsChecked(activation);
  }

  async relockJob(
    job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
    timeoutMs: number,
    now: number,
  ): Promise<JobLock | undefined> {
    checkRelock(job, timeoutMs, now);
    if (!isStorableText(job.instanceId) || !isStorableText(job.jobId)) return this.answered('relockJob', undefined);
    return this.relockJobChecked(job, timeoutMs, now);
  }

  async jobLock(instanceId: string, jobId: string): Promise<JobLock | undefined> {
    if (!isStorableText(instanceId) || !isStorableText(jobId)) return this.answered('jobLock', undefined);
    return this.jobLockChecked(instanceId, jobId);
  }

  async putRows(batch: RowBatch): Promise<boolean> {
    checkRowBatch(batch);
    return this.putRowsChecked(batch);
  }

  async projectionPosition(projection: string): Promise<string | null> {
    if (!isStorableText(projection)) return this.answered('projectionPosition', null);
    return this.projectionPositionChecked(projection);
  }

  async searchRows(search: RowSearch): Promise<RowPage> {
    checkRowSearch(search);
    return this.searchRowsChecked(search);
  }

  async putDeployment(deployment: DeploymentInput): Promise<Deployment> {
    checkDeploymentArguments(deployment);
    return this.putDeploymentChecked(deployment);
  }

  async getDeployment(digest: string): Promise<Deployment | undefined> {
    if (!isStorableText(digest)) return this.answered('getDeployment', undefined);
    return this.getDeploymentChecked(digest);
  }

  async deployments(definitionId?: string): Promise<Deployment[]> {
    if (!isStorableText(definitionId)) return this.answered('deployments', []);
    return this.deploymentsChecked(definitionId);
  }

  /** What a call answers without the database, once the store is known to be open. */
  private answered<T>(operation: string, answer: T): T {
    this.assertOpen(operation);
    return answer;
  }

  protected abstract putChecked(checkpoint: PutCheckpoint): Promise<Lease | undefined>;
  protected abstract rewriteChecked(checkpoint: RewriteCheckpoint): Promise<void>;
  protected abstract putWritesChecked(
    instanceId: string,
    seq: number,
    writes: PendingWrite[],
    fence: Fence | undefined,
  ): Promise<void>;
  protected abstract getChecked(instanceId: string, seq: number | undefined): Promise<StoredCheckpoint | undefined>;
  /** `instanceIds` distinct and storable, at least one. */
  protected abstract getManyChecked(instanceIds: string[]): Promise<StoredCheckpoint[]>;
  protected abstract listChecked(instanceId: string, range: HistoryRange): Promise<StoredCheckpoint[]>;
  protected abstract historyChecked(read: LogRead): Promise<LogEntry[]>;
  protected abstract putReaderChecked(reader: LogReader): Promise<void>;
  protected abstract deleteReaderChecked(name: string): Promise<boolean>;
  protected abstract expireChecked(options: ExpireOptions): Promise<string[]>;
  protected abstract deleteChecked(instanceId: string): Promise<void>;
  protected abstract copyChecked(sourceId: string, targetId: string): Promise<void>;
  protected abstract pruneChecked(instanceId: string, keepLast: number): Promise<void>;
  protected abstract claimChecked(options: ClaimOptions): Promise<Lease[]>;
  protected abstract renewChecked(lease: Lease, ttlMs: number, now: number): Promise<Lease>;
  protected abstract leaseChecked(instanceId: string): Promise<Lease | undefined>;
  protected abstract releaseChecked(lease: Lease): Promise<void>;
  protected abstract dueTimersChecked(now: number, limit: number): Promise<DueTimer[]>;
  protected abstract subscriptionsChecked(name: string, key: string | null): Promise<string[]>;
  protected abstract instancesChecked(query: InstanceQuery): Promise<InstanceSummary[]>;
  protected abstract instanceIdsChecked(query: InstanceQuery): Promise<string[]>;
  protected abstract putMessageChecked(message: BufferedMessage): Promise<boolean>;
  protected abstract takeMessageChecked(
    names: readonly string[],
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined>;
  protected abstract deleteMessageChecked(id: string): Promise<boolean>;
  protected abstract expireMessagesChecked(now: number): Promise<number>;
  protected abstract offerJobChecked(offer: JobOffer): Promise<boolean>;
  protected abstract withdrawJobChecked(instanceId: string, jobId: string): Promise<boolean>;
  protected abstract activateJobsChecked(activation: JobActivation): Promise<JobLock[]>;
  protected abstract relockJobChecked(
    job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
    timeoutMs: number,
    now: number,
  ): Promise<JobLock | undefined>;
  protected abstract jobLockChecked(instanceId: string, jobId: string): Promise<JobLock | undefined>;
  protected abstract putRowsChecked(batch: RowBatch): Promise<boolean>;
  protected abstract projectionPositionChecked(projection: string): Promise<string | null>;
  protected abstract searchRowsChecked(search: RowSearch): Promise<RowPage>;
  protected abstract putDeploymentChecked(deployment: DeploymentInput): Promise<Deployment>;
  protected abstract getDeploymentChecked(digest: string): Promise<Deployment | undefined>;
  protected abstract deploymentsChecked(definitionId: string | undefined): Promise<Deployment[]>;
}
