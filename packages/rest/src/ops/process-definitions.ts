import type { Catalog, ProcessDefinition } from '../catalog.js';
import { readKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound } from '../problem.js';
import { type Searchable, search } from '../search.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { linkedForm } from './forms.js';

/** The definition a key names, or a 404 (a 400 for text that is no key). */
async function definitionOfKey(catalog: Catalog, key: string): Promise<ProcessDefinition> {
  readKey(key, 'path parameter processDefinitionKey');
  const definition = await catalog.findKey(key);
  if (definition === undefined) throw notFound('process definition', key);
  return definition;
}

/** A process definition as Camunda answers it. */
export function definitionResult(definition: ProcessDefinition): Record<string, unknown> {
  return {
    name: definition.name ?? definition.processDefinitionId,
    resourceName: definition.resourceName,
    version: definition.processDefinitionVersion,
    ...(definition.versionTag === null ? {} : { versionTag: definition.versionTag }),
    processDefinitionId: definition.processDefinitionId,
    tenantId: DEFAULT_TENANT,
    processDefinitionKey: definition.processDefinitionKey,
    hasStartForm: definition.startForm !== undefined,
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

/**
 * `GET /process-definitions/{key}/form`: the linked form of the process's none start event; `204` when it has none,
 * or an embedded one (the spec: "will only return linked forms").
 */
const getStartProcessForm: Operation = async (call) => {
  const key = call.params.processDefinitionKey!;
  const definition = await definitionOfKey(call.catalog, key);
  const form = definition.startForm;
  if (form?.kind !== 'linked') return { status: 204 };
  return linkedForm(call, form.formId, `process definition ${key}`);
};

/** The fields a process definition search filters and sorts by, as Camunda names them. */
function searchable(catalog: Catalog): Searchable<ProcessDefinition> {
  const latest = (definition: ProcessDefinition) =>
    catalog.versionsOf(definition.processDefinitionId).at(-1) === definition;
  return {
    id: (definition) => definition.processDefinitionKey,
    idKind: 'key',
    fields: {
      processDefinitionKey: { kind: 'key', value: (definition) => definition.processDefinitionKey },
      processDefinitionId: { kind: 'string', value: (definition) => definition.processDefinitionId },
      name: { kind: 'string', value: (definition) => definition.name ?? definition.processDefinitionId },
      resourceName: { kind: 'string', value: (definition) => definition.resourceName },
      version: { kind: 'integer', value: (definition) => definition.processDefinitionVersion },
      versionTag: { kind: 'string', value: (definition) => definition.versionTag },
      tenantId: { kind: 'string', value: () => DEFAULT_TENANT },
      isLatestVersion: { kind: 'boolean', value: latest, sortable: false },
      hasStartForm: { kind: 'boolean', value: (definition) => definition.startForm !== undefined, sortable: false },
      state: { kind: 'enum', value: () => 'ACTIVE', sortable: false },
    },
  };
}

/** `POST /process-definitions/search`: every deployed definition, read from the store's deployments, never behind. */
const searchProcessDefinitions: Operation = async ({ catalog, json }) => {
  const all = await catalog.all();
  const found = search(all, await json(), searchable(catalog), 'the process definition search');
  return { status: 200, body: { items: found.items.map(definitionResult), page: found.page } };
};

export const processDefinitionOperations = {
  getProcessDefinition,
  getProcessDefinitionXML,
  getStartProcessForm,
  searchProcessDefinitions,
} satisfies Record<string, Operation>;
