/**
 * The rules of the job queue (`offerJob`, `activateJobs`, `relockJob`): the arguments every store checks, and
 * which queued jobs an activation may lock, for the stores that decide it in code.
 */
import { checkInteger, checkObject, checkText } from './input-rules.js';
import type { JobActivation, JobLock, JobOffer } from './repository-types.js';

/**
 * What `offerJob` stores: text ids and type (`checkText`), a positive `attempt`, an integer `notBefore` or null.
 *
 * @throws UnencodableValueError, LimitExceededError or RangeError naming the field
 */
export function checkJobOffer(offer: JobOffer): void {
  checkObject('offer', offer);
  checkText('offer.instanceId', offer.instanceId);
  checkText('offer.jobId', offer.jobId);
  checkText('offer.type', offer.type);
  checkInteger('offer.attempt', offer.attempt, 1);
  if (offer.notBefore !== null) checkInteger('offer.notBefore', offer.notBefore);
}

/**
 * What `activateJobs` takes: text type and worker, an integer `now`, a positive `timeoutMs` and `limit`.
 *
 * @throws UnencodableValueError, LimitExceededError or RangeError naming the field
 */
export function checkJobActivation(activation: JobActivation): void {
  checkObject('activation', activation);
  checkText('activation.type', activation.type);
  checkText('activation.worker', activation.worker);
  checkInteger('activation.now', activation.now);
  checkInteger('activation.timeoutMs', activation.timeoutMs, 1);
  checkInteger('activation.limit', activation.limit, 1);
  // A deadline past what every store keeps would be stored as something else.
  checkInteger('activation.now + activation.timeoutMs', activation.now + activation.timeoutMs);
}

/** What `relockJob` takes: a positive attempt, an integer `now`, a positive `timeoutMs`. */
export function checkRelock(job: Pick<JobLock, 'attempt'>, timeoutMs: number, now: number): void {
  checkObject('job', job);
  checkInteger('job.attempt', job.attempt, 1);
  checkInteger('now', now);
  checkInteger('timeoutMs', timeoutMs, 1);
  checkInteger('now + timeoutMs', now + timeoutMs);
}

/** A queued job as a store holds it: its offer, its place in the queue, and its lock (null when it has none). */
export interface QueuedJob extends JobOffer {
  rank: number;
  worker: string | null;
  deadline: number | null;
}

/** Whether an activation at `now` may lock the queued job: due, and not locked at `now`. */
export function isActivatable(job: QueuedJob, now: number): boolean {
  return (job.notBefore === null || job.notBefore <= now) && (job.deadline === null || job.deadline <= now);
}

/** The lock a queued job carries; undefined when it has none. */
export function lockOf(job: QueuedJob): JobLock | undefined {
  if (job.worker === null || job.deadline === null) return undefined;
  const { instanceId, jobId, type, attempt, worker, deadline } = job;
  return { instanceId, jobId, type, attempt, worker, deadline };
}
