/**
 * Element instance rows: one per activation of an element, opened by its `track.entered` event and completed by
 * its `track.left`; an activation no live track is in any more, and that no event completed, was terminated (an
 * interrupting boundary, a cancellation). Each is keyed by `elementInstanceKey` (the activation's id hashed with
 * its instance's serial), the key user tasks, incidents and jobs name it by.
 */
import type { SearchRow } from '@thresher/checkpoint';
import type { InstanceView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import { elementInstanceKey, externalKey, instanceKey } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { bodyOf, changed, KINDS, rowOf } from './instance-rows.js';

/** What an activation's first row says. */
export function enteredRow(
  serial: number,
  view: InstanceView,
  definition: ProcessDefinition | undefined,
  activation: { elementInstanceId: string; elementId: string },
  at: number,
  order: number,
): SearchRow {
  const key = elementInstanceKey(serial, activation.elementInstanceId);
  const element = definition?.elements.get(activation.elementId);
  const row = rowOf(KINDS.elementInstance, key, {
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
  return { ...row, fields: { ...row.fields, [ORDER]: order, [ACTIVATION]: activation.elementInstanceId } };
}

/** The field an activation's row keeps the engine's id of it in (`ElementInstanceView.id`), beside its body. */
export const ACTIVATION = 'elementInstanceId';

/** The field activations of one instance are ordered by when they began: their step's seq, then their place in it. */
export const ORDER = 'order';

/** A kept activation row as the instance now stands: its incident, or terminated when no live track is in it. */
export function reconciled(row: SearchRow, view: InstanceView, serial: number, at: number): SearchRow {
  if (bodyOf(row).state !== 'ACTIVE') return row;
  const live = view.elementInstances.find((activation) => activation.id === row.fields[ACTIVATION]);
  if (live === undefined) {
    return changed(row, {
      state: 'TERMINATED',
      endDate: new Date(at).toISOString(),
      hasIncident: false,
      incidentKey: undefined,
    });
  }
  const incident = view.incidents.find((candidate) => candidate.trackId === live.trackId);
  const incidentKey = incident === undefined ? undefined : externalKey(serial, incident.id);
  return changed(row, { hasIncident: incident !== undefined, incidentKey });
}
