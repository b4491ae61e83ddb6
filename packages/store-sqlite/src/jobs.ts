/**
 * The job queue on SQLite. Each call runs in the BEGIN IMMEDIATE transaction the repository opens: the write lock
 * is taken before anything is read, so two connections never lock the same job.
 */
import type { JobActivation, JobLock, JobOffer } from '@thresher/checkpoint';
import { type JobLockRow, toJobLock } from '@thresher/checkpoint/store-kit';
import type { Statements } from './statements.js';

/** `offerJob`: the same attempt moves only its notBefore; another is queued anew, unlocked, at the back. */
export function offerJob(sql: Statements, offer: JobOffer): boolean {
  const { instanceId, jobId } = offer;
  const queued = sql.selectJobAttempt.get(instanceId, jobId) as { attempt: number } | undefined;
  if (queued?.attempt === offer.attempt) {
    sql.moveJobNotBefore.run(offer.notBefore, instanceId, jobId);
    return true;
  }
  if (sql.selectInstanceExists.get(instanceId) === undefined) return false;
  const { value: rank } = sql.takeJobRank.get() as { value: number };
  sql.replaceJob.run({
    instance_id: instanceId,
    job_id: jobId,
    type: offer.type,
    attempt: offer.attempt,
    not_before: offer.notBefore,
    rank,
  });
  return true;
}

/** `activateJobs`: the due, unlocked jobs of the type, locked in one statement, first queued first. */
export function activateJobs(sql: Statements, activation: JobActivation): JobLock[] {
  const { type, worker, now, timeoutMs, limit } = activation;
  const rows = sql.lockJobs.all({ type, worker, now, deadline: now + timeoutMs, limit }) as (JobLockRow & {
    rank: number;
  })[];
  // RETURNING gives rows in no promised order.
  return rows.sort((a, b) => a.rank - b.rank).map(toJobLock);
}

export function relockJob(
  sql: Statements,
  job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
  timeoutMs: number,
  now: number,
): JobLock | undefined {
  const row = sql.relockJob.get({
    instance_id: job.instanceId,
    job_id: job.jobId,
    attempt: job.attempt,
    now,
    deadline: now + timeoutMs,
  }) as JobLockRow | undefined;
  return row === undefined ? undefined : toJobLock(row);
}

export function readJobLock(sql: Statements, instanceId: string, jobId: string): JobLock | undefined {
  const row = sql.selectJobLock.get(instanceId, jobId) as JobLockRow | undefined;
  return row === undefined ? undefined : toJobLock(row);
}
