/**
 * Incidents by key: read an open one from its instance (never behind), resolve it. Resolving runs the element again
 * where it stopped; a job's incident gives the job its retries again (Zeebe asks for the retries to be set first).
 */
import type { IncidentRecord, InstanceView } from '@thresher/engine';
import { instanceKey, localKey } from '../keys.js';
import type { Call, Operation } from '../operation.js';
import { notFound } from '../problem.js';
import { readReferenceOnly } from '../schemas/reference.js';
import { DEFAULT_TENANT } from '../tenants.js';

/** Zeebe's error type of each kind of Thresher incident. */
const ERROR_TYPES: Record<IncidentRecord['kind'], string> = {
  'job-failed': 'JOB_NO_RETRIES',
  'no-flow-taken': 'CONDITION_ERROR',
  'expression-failed': 'EXTRACT_VALUE_ERROR',
  'mapping-failed': 'IO_MAPPING_ERROR',
  'uncaught-error': 'UNHANDLED_ERROR_EVENT',
  'call-failed': 'CALLED_ELEMENT_ERROR',
  'step-limit': 'UNKNOWN',
  'decision-failed': 'DECISION_EVALUATION_ERROR',
};

async function incidentOfKey({ engine, keys, params }: Call): Promise<{
  view: InstanceView;
  incident: IncidentRecord;
  serial: number;
}> {
  const key = params.incidentKey!;
  const found = await keys.instanceOf(key, 'path parameter incidentKey');
  const view = found && found.local > 0 ? await engine.instance(found.instanceId) : undefined;
  const incident = view?.incidents.find((candidate) => candidate.id === `${found!.instanceId}/i${found!.local}`);
  if (view === undefined || incident === undefined) throw notFound('incident', key);
  return { view, incident, serial: await keys.serialOf(view.id, view.parentId) };
}

/** `GET /incidents/{incidentKey}`: an open incident; a resolved one is a 404 until search keeps resolved ones. */
const getIncident: Operation = async (call) => {
  const { view, incident, serial } = await incidentOfKey(call);
  const definition = await call.catalog.findInDeployment(view.digest, view.processId);
  return {
    status: 200,
    body: {
      incidentKey: call.params.incidentKey!,
      processDefinitionId: view.processId,
      processDefinitionKey: definition?.processDefinitionKey,
      processInstanceKey: instanceKey(serial),
      errorType: ERROR_TYPES[incident.kind],
      errorMessage: incident.message,
      elementId: incident.nodeId,
      elementInstanceKey: localKey(serial, incident.trackId),
      ...(incident.jobId === null ? {} : { jobKey: localKey(serial, incident.jobId) }),
      creationTime: new Date(incident.raisedAt).toISOString(),
      state: 'ACTIVE',
      tenantId: DEFAULT_TENANT,
    },
  };
};

/** `POST /incidents/{incidentKey}/resolution`. */
const resolveIncident: Operation = async (call) => {
  readReferenceOnly(await call.json(), 'the incident resolution');
  const { incident } = await incidentOfKey(call);
  await call.engine.retryIncident(incident.id);
  return { status: 204 };
};

export const incidentOperations = { getIncident, resolveIncident } satisfies Record<string, Operation>;
