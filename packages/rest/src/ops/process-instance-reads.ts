/** What a process instance's key reads besides the instance: the flows it took, and its call hierarchy. */
import type { InstanceView } from '@thresher/engine';
import type { Catalog } from '../catalog.js';
import type { Operation } from '../operation.js';
import { DEFAULT_TENANT } from '../tenants.js';

async function definitionKeyOf(catalog: Catalog, view: InstanceView): Promise<string | undefined> {
  return (await catalog.findInDeployment(view.digest, view.processId))?.processDefinitionKey;
}

/** `GET /process-instances/{key}/sequence-flows`: each flow the instance (its sub-processes too) took, once. */
const getProcessInstanceSequenceFlows: Operation = async ({ catalog, keys, params }) => {
  const key = params.processInstanceKey!;
  const view = await keys.viewOf(key, 'path parameter processInstanceKey');
  const processDefinitionKey = await definitionKeyOf(catalog, view);
  const flows = [...new Set(view.flows.map((entry) => entry.flow))];
  return {
    status: 200,
    body: {
      items: flows.map((flow) => ({
        sequenceFlowId: flow,
        elementId: flow,
        processInstanceKey: key,
        processDefinitionKey,
        processDefinitionId: view.processId,
        tenantId: DEFAULT_TENANT,
      })),
    },
  };
};

/** `GET /process-instances/{key}/call-hierarchy`: the instances that called it, root first, then itself. */
const getProcessInstanceCallHierarchy: Operation = async ({ engine, catalog, keys, params }) => {
  const chain: InstanceView[] = [await keys.viewOf(params.processInstanceKey!, 'path parameter processInstanceKey')];
  while (chain[0]!.parentId !== null) {
    const parent = await engine.instance(chain[0]!.parentId);
    if (parent === undefined) break; // deleted (expired) before its child: the hierarchy stops there
    chain.unshift(parent);
  }
  const entries = [];
  for (const view of chain) {
    const definition = await catalog.findInDeployment(view.digest, view.processId);
    entries.push({
      processInstanceKey: await keys.keyOf(view.id),
      processDefinitionKey: definition?.processDefinitionKey,
      processDefinitionName: definition?.name ?? view.processId,
    });
  }
  return { status: 200, body: entries };
};

export const processInstanceReadOperations = {
  getProcessInstanceSequenceFlows,
  getProcessInstanceCallHierarchy,
} satisfies Record<string, Operation>;
