/** The job queue in memory: queued jobs by instance, each with its place in the queue and its lock. */
import { checkJobActivation, checkJobOffer, checkRelock, isActivatable, lockOf, type QueuedJob } from '../job-rules.js';
import type { JobActivation, JobLock, JobOffer } from '../repository-types.js';
import type { MemoryState } from './state.js';

export function offerJob(state: MemoryState, offer: JobOffer): boolean {
  checkJobOffer(offer);
  const { instanceId, jobId, type, attempt, notBefore } = offer;
  if (!state.instances.has(instanceId)) return false;
  const jobs = state.jobs.get(instanceId) ?? new Map<string, QueuedJob>();
  state.jobs.set(instanceId, jobs);
  const queued = jobs.get(jobId);
  if (queued !== undefined && queued.attempt === attempt) {
    queued.notBefore = notBefore;
    return true;
  }
  jobs.set(jobId, {
    instanceId,
    jobId,
    type,
    attempt,
    notBefore,
    rank: ++state.lastJobRank,
    worker: null,
    deadline: null,
  });
  return true;
}

export function withdrawJob(state: MemoryState, instanceId: string, jobId: string): boolean {
  const jobs = state.jobs.get(instanceId);
  if (!jobs?.delete(jobId)) return false;
  if (jobs.size === 0) state.jobs.delete(instanceId);
  return true;
}

export function activateJobs(state: MemoryState, activation: JobActivation): JobLock[] {
  checkJobActivation(activation);
  const { type, worker, now, timeoutMs, limit } = activation;
  const due: QueuedJob[] = [];
  for (const jobs of state.jobs.values()) {
    for (const job of jobs.values()) if (job.type === type && isActivatable(job, now)) due.push(job);
  }
  due.sort((a, b) => a.rank - b.rank);
  return due.slice(0, limit).map((job) => {
    job.worker = worker;
    job.deadline = now + timeoutMs;
    return lockOf(job)!;
  });
}

export function relockJob(
  state: MemoryState,
  job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
  timeoutMs: number,
  now: number,
): JobLock | undefined {
  checkRelock(job, timeoutMs, now);
  const queued = state.jobs.get(job.instanceId)?.get(job.jobId);
  if (queued?.attempt !== job.attempt || queued.deadline === null || queued.deadline <= now) return undefined;
  queued.deadline = now + timeoutMs;
  return lockOf(queued);
}

export function readJobLock(state: MemoryState, instanceId: string, jobId: string): JobLock | undefined {
  const queued = state.jobs.get(instanceId)?.get(jobId);
  return queued === undefined ? undefined : lockOf(queued);
}
