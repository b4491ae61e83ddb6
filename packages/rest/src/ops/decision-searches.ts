/**
 * The searches of deployed decisions and decision requirements, over the store's DMN deployments not deleted (never behind),
 * with Camunda's search rules (`search.ts`): each item as `GET …/{key}` answers it.
 */
import { deletedDigests, deploymentKind, type Engine, readDmn } from '@thresher/engine';
import { resourceKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { type FieldKind, type Searchable, search } from '../search.js';
import { DEFAULT_TENANT } from '../tenants.js';

type Item = Record<string, string | number>;

/** Every decision and every DMN file of the store, oldest deployment first, as Camunda's result items. */
async function deployedDecisions(engine: Engine): Promise<{ decisions: Item[]; requirements: Item[] }> {
  const decisions: Item[] = [];
  const requirements: Item[] = [];
  const versions = new Map<string, number>();
  const deployments = await engine.deployments();
  const deleted = deletedDigests(deployments);
  for (const deployment of deployments) {
    if (deploymentKind(deployment) !== 'dmn') continue;
    const definitions = readDmn(deployment.xml);
    // A deleted file is found by no search; its decisions keep their places in the versions counted.
    if (deleted.has(deployment.digest)) {
      for (const decision of definitions.decisions.values())
        versions.set(decision.id, (versions.get(decision.id) ?? 0) + 1);
      continue;
    }
    const requirementsKey = resourceKey(deployment.digest, 1);
    requirements.push({
      decisionRequirementsName: definitions.name ?? definitions.id,
      version: deployment.version,
      decisionRequirementsId: definitions.id,
      resourceName: `${deployment.definitionId.replace(/^dmn:/, '')}.dmn`,
      tenantId: DEFAULT_TENANT,
      decisionRequirementsKey: requirementsKey,
    });
    [...definitions.decisions.values()].forEach((decision, index) => {
      // A decision's version counts the DMN deployments holding its id, oldest first.
      const version = (versions.get(decision.id) ?? 0) + 1;
      versions.set(decision.id, version);
      decisions.push({
        decisionDefinitionId: decision.id,
        name: decision.name,
        version,
        decisionRequirementsId: definitions.id,
        tenantId: DEFAULT_TENANT,
        decisionDefinitionKey: resourceKey(deployment.digest, index + 2),
        decisionRequirementsKey: requirementsKey,
      });
    });
  }
  return { decisions, requirements };
}

/** A search over result items by their own fields, of the kinds given, ties by `id`. */
function searchableOf(id: string, kinds: Record<string, FieldKind>): Searchable<Item> {
  return {
    id: (item) => String(item[id]),
    idKind: 'key',
    fields: Object.fromEntries(
      Object.entries(kinds).map(([name, kind]) => [name, { kind, value: (item: Item) => item[name] }]),
    ),
  };
}

const DECISIONS = searchableOf('decisionDefinitionKey', {
  decisionDefinitionKey: 'key',
  decisionDefinitionId: 'string',
  name: 'string',
  version: 'integer',
  decisionRequirementsId: 'string',
  decisionRequirementsKey: 'key',
  tenantId: 'string',
});

const REQUIREMENTS = searchableOf('decisionRequirementsKey', {
  decisionRequirementsKey: 'key',
  decisionRequirementsName: 'string',
  version: 'integer',
  decisionRequirementsId: 'string',
  tenantId: 'string',
  resourceName: 'string',
});

const searchDecisionDefinitions: Operation = async ({ engine, json }) => {
  const { decisions } = await deployedDecisions(engine);
  return { status: 200, body: search(decisions, await json(), DECISIONS, 'the decision definition search') };
};

const searchDecisionRequirements: Operation = async ({ engine, json }) => {
  const { requirements } = await deployedDecisions(engine);
  return { status: 200, body: search(requirements, await json(), REQUIREMENTS, 'the decision requirements search') };
};

export const decisionSearchOperations = {
  searchDecisionDefinitions,
  searchDecisionRequirements,
} satisfies Record<string, Operation>;
