/**
 * `PUT /element-instances/{key}/variables`: set variables from an element activation outwards (or on it, `local`),
 * as Zeebe's SetVariables does; a process instance's key names its root scope. The activation is found through the
 * search projection, the instance it is in read from the store.
 */
import { readKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import { ACTIVATION } from '../projection/element-rows.js';
import { KINDS } from '../projection/instance-rows.js';
import { readAdHocActivation, readSetVariables } from '../schemas/variables.js';
import { rowOfKey } from './searches.js';

const createElementInstanceVariables: Operation = async (call) => {
  const key = call.params.elementInstanceKey!;
  const parts = readKey(key, 'path parameter elementInstanceKey');
  const { variables, local } = readSetVariables(await call.json());
  if (parts.kind === 'instance' && parts.local === 0) {
    const view = await call.keys.viewOf(key, 'path parameter elementInstanceKey');
    if (view.status !== 'running') throw notFound('element instance', key);
    await call.engine.setVariables(view.id, variables, { local });
    return { status: 204 };
  }
  const { view, live } = await liveActivation(call, key, 'path parameter elementInstanceKey');
  try {
    await call.engine.setVariables(view.id, variables, { elementInstanceId: live.id, local });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'THRESHER_NOT_FOUND') throw notFound('active element instance', key);
    throw error;
  }
  return { status: 204 };
};

/** The live activation an element instance key names (found through the projection), and the instance it is in. */
async function liveActivation(call: Parameters<Operation>[0], key: string, where: string) {
  readKey(key, where);
  const row = await rowOfKey(call, KINDS.elementInstance, key);
  const activation = row?.fields[ACTIVATION];
  const owner =
    row === undefined ? undefined : await call.keys.instanceOf(String(row.fields.processInstanceKey), 'row');
  const view = owner === undefined ? undefined : await call.engine.instance(owner.instanceId);
  const live = view?.elementInstances.find((candidate) => candidate.id === activation);
  if (view === undefined || live === undefined) throw notFound('active element instance', key);
  return { view, live };
}

/**
 * `POST /element-instances/ad-hoc-activities/{key}/activation`: activate elements of a running ad-hoc sub-process,
 * each with its variables. `cancelRemainingInstances` is refused by name: Thresher does not cancel them yet.
 */
const activateAdHocSubProcessActivities: Operation = async (call) => {
  const key = call.params.adHocSubProcessInstanceKey!;
  const { elements, cancelRemainingInstances } = readAdHocActivation(await call.json());
  if (cancelRemainingInstances) {
    throw new Problem(ProblemKind.InvalidArgument, '$.cancelRemainingInstances: not served by Thresher yet');
  }
  const { view, live } = await liveActivation(call, key, 'path parameter adHocSubProcessInstanceKey');
  const adHoc = view.adHocSubProcesses.find((candidate) => candidate.id === `${view.id}/${live.trackId}`);
  if (adHoc === undefined) throw notFound('ad-hoc sub-process instance', key);
  await call.engine.activateAdHocElements(adHoc.id, elements);
  return { status: 204 };
};

export const elementInstanceOperations = {
  createElementInstanceVariables,
  activateAdHocSubProcessActivities,
} satisfies Record<string, Operation>;
