/**
 * The job operations: workers outside the engine activate jobs (a long poll), then complete, fail, throw a BPMN
 * error or update them, by job key. The engine runs with `externalJobs`: a job whose type has no in-process
 * handler waits for them.
 */
import type { ActivatedJob, TaskListenerResult } from '@thresher/engine';
import type { InstanceKeys } from '../instance-keys.js';
import { elementInstanceKey, localKey } from '../keys.js';
import type { Call, Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import {
  type JobCompletionRequest,
  readActivation,
  readCompletion,
  readErrorThrow,
  readFailure,
  readUpdate,
} from '../schemas/jobs.js';
import { DEFAULT_TENANT, readTenant } from '../tenants.js';

/** How long an activation waits for a job when its request says 0 or nothing, as Zeebe's gateway does. */
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** `POST /jobs/activation`: lock up to `maxJobsToActivate` jobs of a type, waiting up to `requestTimeout` for one. */
const activateJobs: Operation = async ({ engine, catalog, keys, req, json }) => {
  const request = readActivation(await json());
  for (const [index, tenantId] of (request.tenantIds ?? []).entries()) readTenant(tenantId, `$.tenantIds[${index}]`);
  const requestTimeout = request.requestTimeout ?? 0;
  // The worker went away: stop waiting (what was locked meanwhile expires as any unanswered lock does).
  const gone = new AbortController();
  const leave = () => gone.abort();
  req.socket.once('close', leave);
  try {
    const jobs = await engine.activateJobs({
      type: request.type,
      worker: request.worker ?? '',
      timeout: request.timeout,
      maxJobs: request.maxJobsToActivate,
      fetchVariables: request.fetchVariable ?? [],
      requestTimeout: requestTimeout === 0 ? DEFAULT_REQUEST_TIMEOUT_MS : Math.max(0, requestTimeout),
      signal: gone.signal,
    });
    const body = [];
    for (const job of jobs) {
      const definition = await catalog.findInDeployment(job.digest, job.processId);
      if (definition === undefined) throw new Error(`job ${job.id} runs ${job.processId}, which no deployment holds`);
      body.push({
        ...(await jobKeys(keys, job)),
        type: job.taskType,
        processDefinitionId: job.processId,
        processDefinitionVersion: definition.processDefinitionVersion,
        processDefinitionKey: definition.processDefinitionKey,
        elementId: job.elementId,
        customHeaders: job.headers,
        worker: job.worker,
        retries: job.retries,
        deadline: job.deadline,
        variables: job.variables,
        tenantId: DEFAULT_TENANT,
        ...kindOf(job),
      });
    }
    return { status: 200, body: { jobs: body } };
  } finally {
    req.socket.off('close', leave);
  }
};

async function jobKeys(keys: InstanceKeys, job: ActivatedJob) {
  const serial = await keys.serialOf(job.instanceId);
  return {
    jobKey: localKey(serial, job.jobId) ?? unkeyable(job.jobId),
    processInstanceKey: await keys.keyOf(job.instanceId),
    elementInstanceKey: elementInstanceKey(serial, job.elementInstanceId),
  };
}

function unkeyable(localId: string): never {
  throw new Error(`${localId} is past what a key numbers`);
}

/** Zeebe's job kind and listener event, and for a task listener's job the user task it runs for. */
function kindOf(job: ActivatedJob) {
  const event = (job.listener?.eventType ?? 'unspecified').toUpperCase();
  if (job.userTask === undefined) {
    return { kind: job.listener ? 'EXECUTION_LISTENER' : 'BPMN_ELEMENT', listenerEventType: event };
  }
  const task = job.userTask;
  return {
    kind: 'TASK_LISTENER',
    listenerEventType: event,
    userTask: {
      action: task.action,
      assignee: task.assignee,
      candidateGroups: task.candidateGroups,
      candidateUsers: task.candidateUsers,
      changedAttributes: task.changedAttributes,
      dueDate: task.dueDate,
      followUpDate: task.followUpDate,
      priority: task.priority,
      userTaskKey: job.headers['io.camunda.zeebe:userTaskKey'] ?? null,
    },
  };
}

/** The engine's id of the job a key names (`<instanceId>/j<n>`), or a 404. */
async function jobOfKey({ keys, params }: Call): Promise<string> {
  const key = params.jobKey!;
  const found = await keys.instanceOf(key, 'path parameter jobKey');
  if (found === undefined || found.local === 0) throw notFound('job', key);
  return `${found.instanceId}/j${found.local}`;
}

/** Run an engine command on a job; its refusal of a job it does not have is the key's 404. */
async function onJob(call: Call, command: (jobId: string) => Promise<void>): Promise<{ status: 204 }> {
  const jobId = await jobOfKey(call);
  try {
    await command(jobId);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'THRESHER_NOT_FOUND') throw notFound('job', call.params.jobKey!);
    throw error;
  }
  return { status: 204 };
}

/** `POST /jobs/{jobKey}/completion`: the job's variables, or a task listener's result. */
const completeJob: Operation = async (call) => {
  const completion = readCompletion(await call.json());
  return onJob(call, (jobId) => call.engine.completeJob(jobId, completion.variables ?? {}, resultOf(completion)));
};

function resultOf(completion: JobCompletionRequest): { result?: TaskListenerResult } {
  const result = completion.result;
  if (result?.type !== 'userTask') return {};
  const corrections = Object.fromEntries(
    Object.entries(result.corrections ?? {}).filter(([, value]) => value !== undefined && value !== null),
  );
  return {
    result: {
      ...(result.denied ? { denied: true } : {}),
      ...(result.deniedReason ? { deniedReason: result.deniedReason } : {}),
      ...(Object.keys(corrections).length > 0 ? { corrections } : {}),
    } as TaskListenerResult,
  };
}

/** `POST /jobs/{jobKey}/failure`: activatable again after the backoff while retries are left, else an incident. */
const failJob: Operation = async (call) => {
  const failure = readFailure(await call.json());
  return onJob(call, (jobId) =>
    call.engine.failJob(jobId, {
      retries: failure.retries ?? 0,
      retryBackOff: failure.retryBackOff ?? 0,
      errorMessage: failure.errorMessage ?? '',
      ...(failure.variables ? { variables: failure.variables } : {}),
    }),
  );
};

/** `POST /jobs/{jobKey}/error`: a BPMN error, caught by the nearest catcher or an incident. */
const throwJobError: Operation = async (call) => {
  const thrown = readErrorThrow(await call.json());
  return onJob(call, (jobId) =>
    call.engine.throwJobError(jobId, {
      errorCode: thrown.errorCode,
      errorMessage: thrown.errorMessage ?? '',
      ...(thrown.variables ? { variables: thrown.variables } : {}),
    }),
  );
};

/** `PATCH /jobs/{jobKey}`: retries, or a new lock timeout from now for an activated job. */
const updateJob: Operation = async (call) => {
  const changeset = readUpdate(await call.json());
  if (changeset.retries == null && changeset.timeout == null) {
    throw new Problem(ProblemKind.InvalidArgument, '$.changeset: names neither retries nor timeout');
  }
  return onJob(call, (jobId) =>
    call.engine.updateJob(jobId, {
      ...(changeset.retries == null ? {} : { retries: changeset.retries }),
      ...(changeset.timeout == null ? {} : { timeout: changeset.timeout }),
    }),
  );
};

export const jobOperations = {
  activateJobs,
  completeJob,
  failJob,
  throwJobError,
  updateJob,
} satisfies Record<string, Operation>;
