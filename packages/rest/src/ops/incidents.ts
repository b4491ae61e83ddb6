/**
 * Incidents by key: read an open one from its instance (never behind), resolve it. Resolving runs the element again
 * where it stopped; a job's incident gives the job its retries again (Zeebe asks for the retries to be set first).
 */
import type { IncidentRecord, InstanceView } from '@thresher/engine';
import type { Call, Operation } from '../operation.js';
import { notFound, unlessNotFound } from '../problem.js';
import { KINDS } from '../projection/instance-rows.js';
import { incidentResult } from '../results.js';
import { readReferenceOnly } from '../schemas/reference.js';
import { keptRow } from './searches.js';

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
  return { view, incident, serial: await keys.serialOf(view.id) };
}

/** `GET /incidents/{incidentKey}`: an open incident from its instance, a resolved one as the projection keeps it. */
const getIncident: Operation = async (call) => {
  const open = await unlessNotFound(incidentOfKey(call));
  if (open === undefined) {
    const key = call.params.incidentKey!;
    return { status: 200, body: await keptRow(call, KINDS.incident, key, 'incident', true) };
  }
  const { view, incident, serial } = open;
  const definition = await call.catalog.findInDeployment(view.digest, view.processId);
  return { status: 200, body: incidentResult(incident, view, definition, serial) };
};

/** `POST /incidents/{incidentKey}/resolution`. */
const resolveIncident: Operation = async (call) => {
  readReferenceOnly(await call.json(), 'the incident resolution');
  const { incident } = await incidentOfKey(call);
  await call.engine.retryIncident(incident.id);
  return { status: 204 };
};

export const incidentOperations = { getIncident, resolveIncident } satisfies Record<string, Operation>;
