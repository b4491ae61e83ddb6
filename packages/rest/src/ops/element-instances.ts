/**
 * `PUT /element-instances/{key}/variables`: set variables from an element activation outwards (or on it, `local`),
 * as Zeebe's SetVariables does; a process instance's key names its root scope. The activation is found through the
 * search projection, the instance it is in read from the store.
 */
import { readKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound } from '../problem.js';
import { ACTIVATION } from '../projection/element-rows.js';
import { KINDS } from '../projection/instance-rows.js';
import { readSetVariables } from '../schemas/variables.js';
import { projectionOf } from './searches.js';

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
  const [row] = (await projectionOf(call).repository.searchRows({ kind: KINDS.elementInstance, keys: [key], limit: 1 }))
    .rows;
  const activation = row?.fields[ACTIVATION];
  const owner =
    row === undefined ? undefined : await call.keys.instanceOf(String(row.fields.processInstanceKey), 'row');
  if (typeof activation !== 'string' || owner === undefined) throw notFound('element instance', key);
  try {
    await call.engine.setVariables(owner.instanceId, variables, { elementInstanceId: activation, local });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'THRESHER_NOT_FOUND') throw notFound('active element instance', key);
    throw error;
  }
  return { status: 204 };
};

export const elementInstanceOperations = { createElementInstanceVariables } satisfies Record<string, Operation>;
