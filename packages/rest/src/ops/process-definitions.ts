import type { Catalog, ProcessDefinition } from '../catalog.js';
import { readKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound } from '../problem.js';
import { DEFAULT_TENANT } from '../tenants.js';

/** The definition a key names, or a 404 (a 400 for text that is no key). */
async function definitionOfKey(catalog: Catalog, key: string): Promise<ProcessDefinition> {
  readKey(key, 'path parameter processDefinitionKey');
  const definition = await catalog.findKey(key);
  if (definition === undefined) throw notFound('process definition', key);
  return definition;
}

/** A process definition as Camunda answers it. Thresher reads no start forms, so none has one. */
export function definitionResult(definition: ProcessDefinition): Record<string, unknown> {
  return {
    name: definition.name ?? definition.processDefinitionId,
    resourceName: definition.resourceName,
    version: definition.processDefinitionVersion,
    ...(definition.versionTag === null ? {} : { versionTag: definition.versionTag }),
    processDefinitionId: definition.processDefinitionId,
    tenantId: DEFAULT_TENANT,
    processDefinitionKey: definition.processDefinitionKey,
    hasStartForm: false,
  };
}

const getProcessDefinition: Operation = async ({ catalog, params }) => ({
  status: 200,
  body: definitionResult(await definitionOfKey(catalog, params.processDefinitionKey!)),
});

/** The XML of the file the definition was deployed in, as deployed. */
const getProcessDefinitionXML: Operation = async ({ engine, catalog, params }) => {
  const definition = await definitionOfKey(catalog, params.processDefinitionKey!);
  const deployment = await engine.deployment(definition.digest);
  if (deployment === undefined) throw notFound('process definition', params.processDefinitionKey!);
  return { status: 200, text: { type: 'text/xml; charset=utf-8', content: deployment.xml } };
};

export const processDefinitionOperations = { getProcessDefinition, getProcessDefinitionXML } satisfies Record<
  string,
  Operation
>;
