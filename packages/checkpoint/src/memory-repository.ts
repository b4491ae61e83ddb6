import { CheckpointError, CheckpointErrorCode } from './errors.js';
import {
  copyInstance,
  deleteInstance,
  pruneCheckpoints,
  putCheckpoint,
  putWrites,
  readCheckpoint,
  readHistory,
  readLatest,
  readLog,
  rewriteCheckpoint,
} from './memory/checkpoints.js';
import { putDeployment, readDeployment, readDeployments } from './memory/deployments.js';
import { readDueTimers, readInstances, readSubscribers } from './memory/discovery.js';
import { activateJobs, offerJob, readJobLock, relockJob, withdrawJob } from './memory/jobs.js';
import { claimLeases, leaseWithPut, readLease, readLeaseOwners, releaseLease, renewLease } from './memory/leases.js';
import { deleteMessage, expireMessages, putMessage, takeMessage } from './memory/messages.js';
import { deleteReader, expireInstances, putReader, readReaders } from './memory/retention.js';
import { putRows, searchRows } from './memory/search-rows.js';
import { emptyState } from './memory/state.js';
import type { Repository } from './repository.js';

/**
 * Create the in-memory reference implementation of the {@link Repository} contract.
 *
 * @remarks
 * Nothing survives the process: use it for tests, examples and short-lived runs. Bytes are copied on the
 * way in and out, so neither the caller's buffer nor a returned one can change what is stored. Every
 * method checks and mutates within one synchronous turn, which makes it atomic with respect to other
 * calls even though it returns a promise; and each decides everything (arguments, then the rules on what
 * is stored) before it changes anything, so a refused call leaves the store as it was, as a rolled-back
 * transaction leaves a SQL store. Its parts live in `memory/`: checkpoints and their journal, discovery,
 * leases, messages, the job queue, deployments and retention.
 *
 * @example
 * ```ts
 * const repository = createMemoryRepository();
 * await repository.put(checkpoint);
 * const latest = await repository.get(checkpoint.instanceId);
 * ```
 */
export function createMemoryRepository(): Repository {
  const state = emptyState();
  let closed = false;

  // Async so that a closed repository (and every other refusal) rejects rather than throws synchronously.
  const assertOpen = async (): Promise<void> => {
    if (closed) {
      throw new CheckpointError(CheckpointErrorCode.Store, 'the memory repository is closed; create a new one');
    }
  };

  return {
    checksDeploymentsSeen: true,
    async put(checkpoint) {
      await assertOpen();
      putCheckpoint(state, checkpoint);
      return leaseWithPut(state, checkpoint);
    },
    async rewrite(checkpoint) {
      await assertOpen();
      rewriteCheckpoint(state, checkpoint);
    },
    async putWrites(instanceId, seq, writes, fence) {
      await assertOpen();
      putWrites(state, instanceId, seq, writes, fence);
    },
    async get(instanceId, seq) {
      await assertOpen();
      return readCheckpoint(state, instanceId, seq);
    },
    async getMany(instanceIds) {
      await assertOpen();
      return readLatest(state, instanceIds);
    },
    async list(instanceId, options) {
      await assertOpen();
      return readHistory(state, instanceId, options);
    },
    async history(query) {
      await assertOpen();
      return readLog(state, query);
    },
    async putReader(reader) {
      await assertOpen();
      putReader(state, reader);
    },
    async readers() {
      await assertOpen();
      return readReaders(state);
    },
    async deleteReader(name) {
      await assertOpen();
      return deleteReader(state, name);
    },
    async expire(options) {
      await assertOpen();
      return expireInstances(state, options);
    },
    async delete(instanceId) {
      await assertOpen();
      deleteInstance(state, instanceId);
    },
    async copy(sourceId, targetId) {
      await assertOpen();
      copyInstance(state, sourceId, targetId);
    },
    async prune(instanceId, options) {
      await assertOpen();
      pruneCheckpoints(state, instanceId, options.keepLast);
    },
    async instances(query) {
      await assertOpen();
      return readInstances(state, query);
    },
    async instanceIds(query) {
      await assertOpen();
      return readInstances(state, query).map((summary) => summary.instanceId);
    },
    async claim(options) {
      await assertOpen();
      return claimLeases(state, options);
    },
    async renew(lease, ttlMs, now) {
      await assertOpen();
      return renewLease(state, lease, ttlMs, now);
    },
    async lease(instanceId) {
      await assertOpen();
      return readLease(state, instanceId);
    },
    async leaseOwners() {
      await assertOpen();
      return readLeaseOwners(state);
    },
    async release(lease) {
      await assertOpen();
      releaseLease(state, lease);
    },
    async dueTimers(now, limit) {
      await assertOpen();
      return readDueTimers(state, now, limit);
    },
    async subscriptions(name, key) {
      await assertOpen();
      return readSubscribers(state, name, key);
    },
    async putMessage(message) {
      await assertOpen();
      return putMessage(state, message);
    },
    async takeMessage(names, correlationKey, now, taker) {
      await assertOpen();
      return takeMessage(state, names, correlationKey, now, taker);
    },
    async deleteMessage(id) {
      await assertOpen();
      return deleteMessage(state, id);
    },
    async expireMessages(now) {
      await assertOpen();
      return expireMessages(state, now);
    },
    async offerJob(offer) {
      await assertOpen();
      return offerJob(state, offer);
    },
    async withdrawJob(instanceId, jobId) {
      await assertOpen();
      return withdrawJob(state, instanceId, jobId);
    },
    async activateJobs(activation) {
      await assertOpen();
      return activateJobs(state, activation);
    },
    async relockJob(job, timeoutMs, now) {
      await assertOpen();
      return relockJob(state, job, timeoutMs, now);
    },
    async jobLock(instanceId, jobId) {
      await assertOpen();
      return readJobLock(state, instanceId, jobId);
    },
    async putRows(batch) {
      await assertOpen();
      return putRows(state, batch);
    },
    async projectionPosition(projection) {
      await assertOpen();
      return state.projections.get(projection) ?? null;
    },
    async searchRows(search) {
      await assertOpen();
      return searchRows(state, search);
    },
    async putDeployment(input) {
      await assertOpen();
      return putDeployment(state, input);
    },
    async getDeployment(digest) {
      await assertOpen();
      return readDeployment(state, digest);
    },
    async deployments(definitionId) {
      await assertOpen();
      return readDeployments(state, definitionId);
    },
    async close() {
      // Idempotent so that a harness may close a repository a test already closed.
      closed = true;
      Object.assign(state, emptyState());
    },
  };
}
