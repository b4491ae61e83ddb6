/**
 * The job queue on PostgreSQL: each call is one statement. An activation picks `FOR UPDATE SKIP LOCKED` and
 * locks its pick in the same statement, so concurrent activations never lock the same job.
 */
import type { JobActivation, JobLock, JobOffer } from '@thresher/checkpoint';
import { type JobLockRow, toJobLock } from '@thresher/checkpoint/store-kit';
import type { PgQueryable } from './driver.js';
import type { Statements } from './statements.js';

type Int8 = string | number;

export async function offerJob(db: PgQueryable, sql: Statements, offer: JobOffer): Promise<boolean> {
  const { instanceId, jobId, type, attempt, notBefore } = offer;
  const { rowCount } = await db.query(sql.offerJob, [instanceId, jobId, type, attempt, notBefore]);
  return (rowCount ?? 0) > 0;
}

export async function withdrawJob(db: PgQueryable, sql: Statements, instanceId: string, jobId: string) {
  const { rowCount } = await db.query(sql.deleteJob, [instanceId, jobId]);
  return (rowCount ?? 0) > 0;
}

export async function activateJobs(db: PgQueryable, sql: Statements, activation: JobActivation): Promise<JobLock[]> {
  const { type, worker, now, timeoutMs, limit } = activation;
  const { rows } = await db.query<JobLockRow<Int8> & { rank: Int8 }>(sql.activateJobs, [
    type,
    worker,
    now,
    now + timeoutMs,
    limit,
  ]);
  // RETURNING gives rows in no promised order.
  return rows.sort((a, b) => Number(a.rank) - Number(b.rank)).map(toJobLock);
}

export async function relockJob(
  db: PgQueryable,
  sql: Statements,
  job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
  timeoutMs: number,
  now: number,
): Promise<JobLock | undefined> {
  const { rows } = await db.query<JobLockRow<Int8>>(sql.relockJob, [
    job.instanceId,
    job.jobId,
    job.attempt,
    now,
    now + timeoutMs,
  ]);
  return rows[0] === undefined ? undefined : toJobLock(rows[0]);
}

export async function readJobLock(db: PgQueryable, sql: Statements, instanceId: string, jobId: string) {
  const { rows } = await db.query<JobLockRow<Int8>>(sql.selectJobLock, [instanceId, jobId]);
  return rows[0] === undefined ? undefined : toJobLock(rows[0]);
}
