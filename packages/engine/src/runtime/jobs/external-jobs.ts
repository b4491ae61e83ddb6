/**
 * Jobs for workers outside the engine (`EngineOptions.externalJobs`): a job whose type has no handler waits in
 * the store's queue; a worker activates it (a lock for a while), then completes, fails or throws a BPMN error
 * through the instance's loop, as a handler's outcome would come back.
 */

import { checkEncodable, type JobLock, type StoredCheckpoint, type Variables } from '@thresher/checkpoint';
import { InstanceHeldError, InvalidArgumentError, InvalidStateError, NotFoundError } from '../../common/errors.js';
import { dispatchKey, obligationsOf } from '../../core/step/effects.js';
import { elementInstanceId } from '../../core/step/event-ids.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import type { InstanceState } from '../../core/step/state.js';
import type { TaskListenerResult } from '../base/types.js';
import { openStored } from '../document/capture.js';
import { hasHandler, jobView } from '../loop/job-calls.js';
import { externalId, parseExternalId } from '../loop/views.js';
import type { EngineParts } from '../parts/engine-parts.js';
import type {
  ActivatedJob,
  ActivateJobsOptions,
  FailJobOptions,
  ThrowJobErrorOptions,
  UpdateJobOptions,
} from './job-types.js';

/** How often a waiting activation looks at the store for jobs another process queued, in ms. */
const STORE_POLL_MS = 200;
/** How long a command waits, in all, for another engine to let go of the instance, in ms. */
const HELD_WAIT_MS = 10_000;
const HELD_RETRY_MS = 100;

/** Activate jobs of a type for a worker, waiting up to `requestTimeout` for one when none is there at once. */
export async function activateJobs(parts: EngineParts, options: ActivateJobsOptions): Promise<ActivatedJob[]> {
  checkActivation(options);
  const until = Date.now() + (options.requestTimeout ?? 0);
  for (;;) {
    const jobs = await activateNow(parts, options);
    const left = until - Date.now();
    if (jobs.length > 0 || left <= 0 || options.signal?.aborted || parts.flags.closed) return jobs;
    await parts.jobBell.wait(options.type, Math.min(left, STORE_POLL_MS), options.signal);
  }
}

/** Complete a job with the variables it produced; a task listener's job with its `result` alone. */
export async function completeJob(
  parts: EngineParts,
  id: string,
  variables: Variables,
  result: TaskListenerResult | undefined,
): Promise<void> {
  checkEncodable(variables, '$variables');
  if (result !== undefined) checkEncodable(result, '$result');
  await workerCommand(parts, id, (state, jobId) => {
    const job = state.jobs.get(jobId)!;
    if (job.taskListener) {
      if (Object.keys(variables).length > 0) {
        throw new InvalidArgumentError(
          `job ${id} is a task listener's: it completes with a result (corrections or a denial), never variables, as in Zeebe`,
        );
      }
      return { type: 'job.completed', jobId, result: { ...result }, worker: true };
    }
    if (result !== undefined) {
      throw new InvalidArgumentError(`job ${id} is not a task listener's: a user task result is not one it can take`);
    }
    return { type: 'job.completed', jobId, result: { ...variables }, worker: true };
  });
}

/** Fail a job: activatable again after `retryBackOff` while `retries` are left, else an incident. */
export async function failJob(parts: EngineParts, id: string, options: FailJobOptions): Promise<void> {
  const { retries, retryBackOff = 0, errorMessage = '', variables } = options;
  checkCount('retries', retries, 0);
  checkCount('retryBackOff', retryBackOff, 0);
  if (typeof errorMessage !== 'string') throw new InvalidArgumentError('errorMessage must be a string');
  if (variables !== undefined) checkEncodable(variables, '$variables');
  await workerCommand(parts, id, (_, jobId) => ({
    type: 'job.failed',
    jobId,
    error: errorMessage,
    retryable: true,
    retries,
    backoffMs: retryBackOff,
    ...(variables ? { variables: { ...variables } } : {}),
  }));
}

/** Throw a BPMN error from a job: the nearest catcher takes it, else it is an incident. */
export async function throwJobError(parts: EngineParts, id: string, options: ThrowJobErrorOptions): Promise<void> {
  const { errorCode, errorMessage = '', variables } = options;
  if (typeof errorCode !== 'string' || errorCode === '') {
    throw new InvalidArgumentError('errorCode must be a string that is not empty');
  }
  if (variables !== undefined) checkEncodable(variables, '$variables');
  await workerCommand(parts, id, (_, jobId) => ({
    type: 'job.failed',
    jobId,
    error: errorMessage,
    retryable: false,
    errorCode,
    ...(variables ? { variables: { ...variables } } : {}),
  }));
}

/** Change a job's retries, or move its lock's deadline to `timeout` ms from now while it is activated. */
export async function updateJob(parts: EngineParts, id: string, changes: UpdateJobOptions): Promise<void> {
  const { retries, timeout } = changes;
  if (retries !== undefined) checkCount('retries', retries, 1);
  if (timeout !== undefined) checkCount('timeout', timeout, 1);
  if (timeout !== undefined) {
    const { instanceId, localId } = parseJobId(id);
    const stored = await parts.repository.get(instanceId);
    const job = stored && openStored(stored).jobs.get(localId);
    if (!job) throw new NotFoundError('job', id);
    const lock = { instanceId, jobId: localId, attempt: job.failures + 1 };
    if (!(await parts.repository.relockJob(lock, timeout, parts.clock.now()))) {
      throw new InvalidStateError(`job ${id} is not activated: only an activated job's timeout can be changed`);
    }
  }
  if (retries !== undefined) await workerCommand(parts, id, (_, jobId) => ({ type: 'job.updated', jobId, retries }));
}

/** One look at the store: lock what is there, and describe each job from its instance's head. */
async function activateNow(parts: EngineParts, options: ActivateJobsOptions): Promise<ActivatedJob[]> {
  const { repository, clock } = parts;
  const locks = await repository.activateJobs({
    type: options.type,
    worker: options.worker,
    now: clock.now(),
    timeoutMs: options.timeout,
    limit: options.maxJobs,
  });
  if (locks.length === 0) return [];
  const heads = await repository.getMany([...new Set(locks.map((lock) => lock.instanceId))]);
  const states = new Map(heads.map((stored) => [stored.instanceId, opened(stored)]));
  const jobs: ActivatedJob[] = [];
  for (const lock of locks) {
    const state = states.get(lock.instanceId);
    const job = state?.jobs.get(lock.jobId);
    if (!state || !job || state.instance.status !== 'running') {
      // The instance moved past the job, and the withdrawal did not land: the queue forgets it now.
      await repository.withdrawJob(lock.instanceId, lock.jobId);
      continue;
    }
    // Another attempt is on its way into the queue, or the job waits on an incident: not this lock's to run.
    if (job.failures + 1 !== lock.attempt || !obligationsOf(state).jobs.has(dispatchKey(job))) continue;
    jobs.push(activated(state, await parts.definitions.pinnedProcess(state), lock, options.fetchVariables));
  }
  return jobs;
}

function activated(
  state: InstanceState,
  process: Parameters<typeof jobView>[1],
  lock: JobLock,
  fetchVariables: readonly string[] | undefined,
): ActivatedJob {
  const job = state.jobs.get(lock.jobId)!;
  const { id: _local, traceContext: _trace, variables, ...view } = jobView(state, process, job);
  return {
    ...view,
    id: externalId(state.instance.id, job.id),
    jobId: job.id,
    processId: state.instance.processId,
    elementInstanceId: elementInstanceId(state.track(job.trackId)),
    parentId: state.instance.parentId,
    digest: state.instance.definition.digest,
    variables: picked(variables, fetchVariables),
    retries: job.retriesLeft,
    worker: lock.worker,
    deadline: lock.deadline,
  };
}

function picked(variables: Variables, names: readonly string[] | undefined): Variables {
  if (!names || names.length === 0) return variables;
  return Object.fromEntries(
    names.filter((name) => Object.hasOwn(variables, name)).map((name) => [name, variables[name]]),
  );
}

function opened(stored: StoredCheckpoint): InstanceState | undefined {
  try {
    return openStored(stored);
  } catch {
    return undefined; // its restore reports what is wrong with it
  }
}

/**
 * Apply a worker's word on a job through its instance's loop, restoring the instance here when no engine holds
 * it; while another engine holds it (a step of its own under way), waits for it to let go.
 */
async function workerCommand(
  parts: EngineParts,
  id: string,
  event: (state: InstanceState, jobId: string) => InstanceEvent,
): Promise<void> {
  const { instanceId, localId } = parseJobId(id);
  const started = Date.now();
  for (;;) {
    try {
      const runtime = await parts.instances.runtime(instanceId);
      const job = runtime.current.jobs.get(localId);
      if (!job) throw new NotFoundError('job', id);
      if (!parts.loopHost.settings.externalJobs || hasHandler(parts.handlers, job.taskType)) {
        throw new InvalidStateError(
          `job ${id} of type "${job.taskType}" is run by this engine's handler, not by a worker outside it`,
        );
      }
      return await runtime.workerCommand(localId, id, event(runtime.current, localId));
    } catch (error) {
      if (error instanceof NotFoundError && error.kind === 'instance') throw new NotFoundError('job', id);
      if (!(error instanceof InstanceHeldError) || Date.now() - started > HELD_WAIT_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
    }
  }
}

function parseJobId(id: string): { instanceId: string; localId: string } {
  const parsed = typeof id === 'string' ? parseExternalId(id) : undefined;
  if (!parsed) throw new NotFoundError('job', String(id));
  return parsed;
}

function checkActivation(options: ActivateJobsOptions): void {
  if (typeof options.type !== 'string' || options.type === '') {
    throw new InvalidArgumentError('type must be a string that is not empty');
  }
  if (typeof options.worker !== 'string') throw new InvalidArgumentError('worker must be a string');
  checkCount('timeout', options.timeout, 1);
  checkCount('maxJobs', options.maxJobs, 1);
  if (options.requestTimeout !== undefined) checkCount('requestTimeout', options.requestTimeout, 0);
  if (options.fetchVariables !== undefined && !options.fetchVariables.every((name) => typeof name === 'string')) {
    throw new InvalidArgumentError('fetchVariables must be a list of variable names');
  }
}

function checkCount(name: string, value: unknown, min: number): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}, not ${JSON.stringify(value)}`);
  }
}
