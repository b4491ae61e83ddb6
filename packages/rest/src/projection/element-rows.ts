/**
 * Element instance rows: one per activation of an element, opened by its `track.entered` event and completed by
 * its `track.left`; an activation no live track is in any more, and that no event completed, was terminated (an
 * interrupting boundary, a cancellation). Each is keyed by `elementInstanceKey` (the activation's id hashed with
 * its instance's serial), the key user tasks, incidents and jobs name it by.
 */
import type { SearchRow } from '@thresher/checkpoint';
import type { InstanceView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import { elementInstanceKey, instanceKey, localKey } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { bodyOf, KINDS, rowOf } from './instance-rows.js';

/** What an activation's first row says. */
export function enteredRow(
  serial: number,
  view: InstanceView,
  definition: ProcessDefinition | undefined,
  activation: { elementInstanceId: string; elementId: string },
  at: number,
): SearchRow {
  const key = elementInstanceKey(serial, activation.elementInstanceId);
  const element = definition?.elements.get(activation.elementId);
  return rowOf(KINDS.elementInstance, key, {
    elementInstanceKey: key,
    elementId: activation.elementId,
    elementName: element?.name ?? activation.elementId,
    type: element?.type ?? (activation.elementId === view.processId ? 'PROCESS' : 'UNKNOWN'),
    state: 'ACTIVE',
    startDate: new Date(at).toISOString(),
    hasIncident: false,
    processInstanceKey: instanceKey(serial),
    processDefinitionId: view.processId,
    ...(definition === undefined ? {} : { processDefinitionKey: definition.processDefinitionKey }),
    tenantId: DEFAULT_TENANT,
  });
}

/** A kept activation row as the instance now stands: its incident, or terminated when no live track is in it. */
export function reconciled(row: SearchRow, view: InstanceView, serial: number, at: number): SearchRow {
  const body = bodyOf(row);
  if (body.state !== 'ACTIVE') return row;
  const live = view.elementInstances.find((activation) => elementInstanceKey(serial, activation.id) === row.key);
  if (live === undefined) {
    return rowOf(row.kind, row.key, {
      ...body,
      state: 'TERMINATED',
      endDate: new Date(at).toISOString(),
      hasIncident: false,
    });
  }
  const incident = view.incidents.find((candidate) => candidate.trackId === live.trackId);
  const incidentKey =
    incident === undefined ? undefined : localKey(serial, incident.id.slice(incident.id.lastIndexOf('/') + 1));
  const { incidentKey: _was, ...rest } = body;
  return rowOf(row.kind, row.key, {
    ...rest,
    hasIncident: incident !== undefined,
    ...(incidentKey === undefined ? {} : { incidentKey }),
  });
}
