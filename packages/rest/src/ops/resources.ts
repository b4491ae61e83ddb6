/**
 * Deployed resources read by key: a process definition's BPMN file, a DMN file (its decision requirements) and its
 * decisions, a Camunda form. Keys are derived from the deployment's digest and the place in it (`keys.ts`), so a
 * key is looked up among the store's deployments. A deleted one (`POST /resources/{key}/deletion`) is found by none.
 */
import { type Deployment, deletedDigests, deploymentKind, type Engine, readDmn } from '@thresher/engine';
import type { Catalog } from '../catalog.js';
import { decisionIdsOf } from '../dmn-decisions.js';
import { digestBits, readKey, resourceKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import { readReferenceOnly } from '../schemas/reference.js';
import { DEFAULT_TENANT } from '../tenants.js';

/** What a resource key names. */
type Named =
  | { kind: 'process'; deployment: Deployment; id: string; version: number; versionTag: string | null }
  | { kind: 'requirements'; deployment: Deployment; id: string; name: string; version: number }
  | { kind: 'decision'; deployment: Deployment; id: string; name: string; version: number; requirementsId: string }
  | { kind: 'form'; deployment: Deployment; id: string; version: number };

async function namedBy(engine: Engine, catalog: Catalog, key: string, where: string): Promise<Named | undefined> {
  const parts = readKey(key, where);
  if (parts.kind !== 'resource' || parts.index === 0) return undefined;
  const process = await catalog.findKey(key);
  if (process !== undefined) {
    const deployment = await engine.deployment(process.digest);
    if (deployment === undefined) return undefined;
    const { processDefinitionId: id, processDefinitionVersion: version, versionTag } = process;
    return { kind: 'process', deployment, id, version, versionTag };
  }
  const deployments = await engine.deployments();
  const deleted = deletedDigests(deployments);
  for (const deployment of deployments) {
    if (digestBits(deployment.digest) !== parts.digestBits || deleted.has(deployment.digest)) continue;
    const kind = deploymentKind(deployment);
    if (kind === 'form' && parts.index === 1) {
      return {
        kind: 'form',
        deployment,
        id: deployment.definitionId.slice('form:'.length),
        version: deployment.version,
      };
    }
    if (kind !== 'dmn') continue;
    const definitions = readDmn(deployment.xml);
    if (parts.index === 1) {
      const name = definitions.name ?? definitions.id;
      return { kind: 'requirements', deployment, id: definitions.id, name, version: deployment.version };
    }
    const decision = [...definitions.decisions.values()][parts.index - 2];
    if (decision === undefined) return undefined;
    // A decision's version counts the DMN deployments holding its id, oldest first.
    const holding = deployments.filter(
      (other) => deploymentKind(other) === 'dmn' && decisionIdsOf(other).includes(decision.id),
    );
    const version = holding.findIndex((other) => other.digest === deployment.digest) + 1;
    return {
      kind: 'decision',
      deployment,
      id: decision.id,
      name: decision.name,
      version,
      requirementsId: definitions.id,
    };
  }
  return undefined;
}

function resourceName(named: Named): string {
  const extension = { process: 'bpmn', requirements: 'dmn', decision: 'dmn', form: 'form' }[named.kind];
  const id = named.kind === 'form' ? named.id : named.deployment.definitionId.replace(/^dmn:/, '');
  return `${id}.${extension}`;
}

/** `GET /resources/{resourceKey}`: a process definition, decision requirements or form deployed. */
const getResource: Operation = async ({ engine, catalog, params }) => {
  const key = params.resourceKey!;
  const named = await namedBy(engine, catalog, key, 'path parameter resourceKey');
  if (named === undefined || named.kind === 'decision') throw notFound('resource', key);
  return {
    status: 200,
    body: {
      resourceName: resourceName(named),
      version: named.version,
      ...(named.kind === 'process' && named.versionTag !== null ? { versionTag: named.versionTag } : {}),
      resourceId: named.id,
      tenantId: DEFAULT_TENANT,
      resourceKey: key,
    },
  };
};

/** `GET /resources/{resourceKey}/content`: the file as deployed. */
const getResourceContent: Operation = async ({ engine, catalog, params }) => {
  const key = params.resourceKey!;
  const named = await namedBy(engine, catalog, key, 'path parameter resourceKey');
  if (named === undefined || named.kind === 'decision') throw notFound('resource', key);
  return { status: 200, body: named.deployment.xml };
};

/**
 * `POST /resources/{resourceKey}/deletion`: the file of a process definition, decision requirements or form is
 * deleted (`engine.deleteDeployment`): it starts nothing more, its running instances run to their end. Thresher
 * deletes files: a process of a file holding others is refused (`409`), naming them.
 */
const deleteResource: Operation = async ({ engine, catalog, params, json }) => {
  const key = params.resourceKey!;
  readReferenceOnly(await json(), 'the resource deletion');
  const named = await namedBy(engine, catalog, key, 'path parameter resourceKey');
  if (named === undefined || named.kind === 'decision') throw notFound('resource', key);
  if (named.kind === 'process') {
    const others = catalog
      .ofDeployment(named.deployment.digest)
      .filter((other) => other.processDefinitionId !== named.id);
    if (others.length > 0) {
      const names = others.map((other) => `"${other.processDefinitionId}"`).join(', ');
      throw new Problem(
        ProblemKind.InvalidState,
        `process definition ${key} ("${named.id}") is in a file that also holds ${names}: Thresher deletes whole files, so it deletes none of them`,
      );
    }
  }
  await engine.deleteDeployment(named.deployment.digest);
  await catalog.refresh();
  return { status: 200 };
};

/** The named resource of `kind`, or a 404 saying `thing`. */
async function ofKind<K extends Named['kind']>(
  engine: Engine,
  catalog: Catalog,
  key: string,
  kind: K,
  thing: string,
  where: string,
): Promise<Extract<Named, { kind: K }>> {
  const named = await namedBy(engine, catalog, key, where);
  if (named?.kind !== kind) throw notFound(thing, key);
  return named as Extract<Named, { kind: K }>;
}

/** The decision a decision definition key names, or a 404. */
export function decisionOfKey(engine: Engine, catalog: Catalog, key: string, where: string) {
  return ofKind(engine, catalog, key, 'decision', 'decision definition', where);
}

const getDecisionDefinition: Operation = async ({ engine, catalog, params }) => {
  const key = params.decisionDefinitionKey!;
  const decision = await decisionOfKey(engine, catalog, key, 'path parameter decisionDefinitionKey');
  return {
    status: 200,
    body: {
      decisionDefinitionId: decision.id,
      name: decision.name,
      version: decision.version,
      decisionRequirementsId: decision.requirementsId,
      tenantId: DEFAULT_TENANT,
      decisionDefinitionKey: key,
      decisionRequirementsKey: resourceKey(decision.deployment.digest, 1),
    },
  };
};

const getDecisionDefinitionXML: Operation = async ({ engine, catalog, params }) => {
  const key = params.decisionDefinitionKey!;
  const decision = await decisionOfKey(engine, catalog, key, 'path parameter decisionDefinitionKey');
  return { status: 200, text: { type: 'text/xml; charset=utf-8', content: decision.deployment.xml } };
};

const getDecisionRequirements: Operation = async ({ engine, catalog, params }) => {
  const key = params.decisionRequirementsKey!;
  const where = 'path parameter decisionRequirementsKey';
  const requirements = await ofKind(engine, catalog, key, 'requirements', 'decision requirements', where);
  return {
    status: 200,
    body: {
      decisionRequirementsName: requirements.name,
      version: requirements.version,
      decisionRequirementsId: requirements.id,
      resourceName: resourceName(requirements),
      tenantId: DEFAULT_TENANT,
      decisionRequirementsKey: key,
    },
  };
};

const getDecisionRequirementsXML: Operation = async ({ engine, catalog, params }) => {
  const key = params.decisionRequirementsKey!;
  const where = 'path parameter decisionRequirementsKey';
  const requirements = await ofKind(engine, catalog, key, 'requirements', 'decision requirements', where);
  return { status: 200, text: { type: 'text/xml; charset=utf-8', content: requirements.deployment.xml } };
};

export const resourceOperations = {
  getResource,
  deleteResource,
  getResourceContent,
  getDecisionDefinition,
  getDecisionDefinitionXML,
  getDecisionRequirements,
  getDecisionRequirementsXML,
} satisfies Record<string, Operation>;
