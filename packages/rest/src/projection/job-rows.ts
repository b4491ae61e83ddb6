/**
 * Job rows: one per job an instance dispatched, `CREATED` while it is open (`FAILED` once an attempt failed), then
 * `COMPLETED` when it went with a completion, `ERROR_THROWN` when it went as its instance caught a BPMN error, else
 * `CANCELED` (its element or instance ended otherwise). The worker holding a lock is the store's, not the log's: a
 * row's `worker` is empty.
 */
import type { SearchRow } from '@thresher/checkpoint';
import type { InstanceView, OpenJobView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import { elementInstanceKey, externalKey, instanceKey, localIdOf } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { changed, KINDS, rowOf } from './instance-rows.js';
import { BODY } from './row-search.js';

export interface JobSource {
  view: InstanceView;
  serial: number;
  definition: ProcessDefinition | undefined;
  /** When what changed without an event of its own changed: the instance's last event in the batch. */
  at: number;
  /** The jobs completed in the batch, by the engine's local id (`j3`). */
  completed: ReadonlySet<string>;
  /** The jobs dispatched in the batch, by local id: what a job that came and went within it is made from. */
  dispatched: ReadonlyMap<string, DispatchedJob>;
  /** Whether the instance caught a BPMN error in the batch. */
  caughtError: boolean;
}

/** What the log tells of a job dispatched: enough for a row when the job is gone before the batch ends. */
export type DispatchedJob = Pick<OpenJobView, 'elementId' | 'taskType' | 'listener'> & {
  elementInstanceId: string | undefined;
};

/** Zeebe's kind and listener event of a job. */
function kindOf(job: Pick<OpenJobView, 'listener'>): { kind: string; listenerEventType: string } {
  const listenerEventType = (job.listener?.eventType ?? 'unspecified').toUpperCase();
  if (job.listener === undefined) return { kind: 'BPMN_ELEMENT', listenerEventType };
  return { kind: job.listener.kind === 'task' ? 'TASK_LISTENER' : 'EXECUTION_LISTENER', listenerEventType };
}

/** A job as the log or its instance tells it: the activation it runs for is unknown to a job gone before the batch saw it. */
type JobFacts = Omit<OpenJobView, 'id' | 'elementInstanceId'> & { elementInstanceId: string | undefined };

function jobBody(source: JobSource, job: JobFacts, key: string): Record<string, unknown> {
  const { view, serial, definition } = source;
  const failed = job.failures > 0;
  return {
    jobKey: key,
    type: job.taskType,
    worker: '',
    state: failed ? 'FAILED' : 'CREATED',
    ...kindOf(job),
    retries: job.retries,
    hasFailedWithRetriesLeft: failed && job.retries > 0,
    ...(job.lastError === null ? {} : { errorMessage: job.lastError }),
    customHeaders: job.headers,
    processDefinitionId: view.processId,
    ...(definition === undefined ? {} : { processDefinitionKey: definition.processDefinitionKey }),
    processInstanceKey: instanceKey(serial),
    elementId: job.elementId,
    ...(job.elementInstanceId === undefined
      ? {}
      : { elementInstanceKey: elementInstanceKey(serial, job.elementInstanceId) }),
    tenantId: DEFAULT_TENANT,
  };
}

/** The job rows of an instance, given the rows of its jobs the projection holds open (`kept`). */
export function jobRows(source: JobSource, kept: readonly SearchRow[]): SearchRow[] {
  const rows: SearchRow[] = [];
  const live = new Set<string>();
  const keptBodies = new Map(kept.map((row) => [row.key, row.fields[BODY]]));
  for (const job of source.view.jobs) {
    const key = externalKey(source.serial, job.id);
    if (key === undefined) continue;
    live.add(key);
    const row = rowOf(KINDS.job, key, jobBody(source, job, key));
    // A job as it was kept is not written again: most batches touch an instance for other reasons.
    if (keptBodies.get(key) !== row.fields[BODY]) rows.push(row);
  }
  const endTime = new Date(source.at).toISOString();
  const ended = (localId: string) => ({
    state: source.completed.has(localId) ? 'COMPLETED' : source.caughtError ? 'ERROR_THROWN' : 'CANCELED',
    endTime,
    hasFailedWithRetriesLeft: false,
  });
  for (const row of kept) {
    if (!live.has(row.key)) rows.push(changed(row, ended(localIdOf(row.key, 'j'))));
  }
  for (const [localId, job] of source.dispatched) {
    const key = externalKey(source.serial, localId);
    if (key === undefined || live.has(key) || keptBodies.has(key)) continue;
    const facts = { ...job, retries: 0, failures: 0, lastError: null, headers: {} };
    rows.push(rowOf(KINDS.job, key, { ...jobBody(source, facts, key), ...ended(localId) }));
  }
  return rows;
}
