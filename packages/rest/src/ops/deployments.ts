import { type DeployResult, ModelError } from '@thresher/engine';
import type { Catalog } from '../catalog.js';
import { resourceKey } from '../keys.js';
import { type FormPart, readMultipart } from '../multipart.js';
import type { Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { DEFAULT_TENANT, readTenant } from '../tenants.js';

/**
 * `POST /deployments`: every file part is a resource (whatever its field name, as Zeebe takes them), deployed
 * together: all or nothing. BPMN, DMN and Camunda forms are deployed; any other file is refused by name, nothing
 * deployed. The deployment's key is its files' (the same files deployed again are the same deployment: Thresher
 * keeps one of each).
 */
const createDeployment: Operation = async ({ engine, catalog, req, bytes }) => {
  const parts = readMultipart(req.headers['content-type'], await bytes());
  const tenant = parts.find((part) => part.filename === undefined && part.name === 'tenantId');
  readTenant(tenant?.data.toString('utf8'), '$.tenantId');
  const files = parts.filter((part) => part.filename !== undefined);
  if (files.length === 0) throw new Problem(ProblemKind.InvalidArgument, '$.resources: no resource was sent');
  const texts = files.map(resourceText);
  let results: DeployResult[];
  try {
    results = await engine.deployTogether(texts);
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    const file = files[error.fileIndex ?? 0]!;
    throw new Problem(ProblemKind.InvalidArgument, `resource "${file.filename}": ${error.message}`);
  }
  await catalog.refresh();
  const deployments = results.flatMap((result, index) => deployed(result, files[index]!.filename!, catalog));
  const key =
    results.length === 1 ? resourceKey(results[0]!.digest, 0) : resourceKey(results.map((r) => r.digest).join(','), 0);
  return { status: 200, body: { deploymentKey: key, tenantId: DEFAULT_TENANT, deployments } };
};

/** A resource's text, if it is a model Thresher deploys; else a 400 naming it. */
function resourceText(file: FormPart): string {
  const name = file.filename ?? '';
  const text = file.data.toString('utf8');
  const opening = text.trimStart()[0];
  const fits = opening === '{' ? !/\.(bpmn|dmn|xml)$/i.test(name) : opening === '<' && !/\.form$/i.test(name);
  if (!fits) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `resource "${name}": not a BPMN or DMN model (.bpmn, .dmn: XML) or a Camunda form (.form: JSON)`,
    );
  }
  return text;
}

/** What a deployed file holds, as Camunda lists it. */
function deployed(result: DeployResult, resourceName: string, catalog: Catalog): object[] {
  if (result.kind === 'form') {
    return [
      {
        form: {
          formId: result.definitionId,
          version: result.version,
          resourceName,
          tenantId: DEFAULT_TENANT,
          formKey: resourceKey(result.digest, 1),
        },
      },
    ];
  }
  if (result.kind === 'dmn') {
    const requirementsKey = resourceKey(result.digest, 1);
    return [
      {
        decisionRequirements: {
          decisionRequirementsId: result.definitionId,
          version: result.version,
          decisionRequirementsName: result.definitionId,
          tenantId: DEFAULT_TENANT,
          resourceName,
          decisionRequirementsKey: requirementsKey,
        },
      },
      ...result.decisions.map((decision, index) => ({
        decisionDefinition: {
          decisionDefinitionId: decision.id,
          version: decision.version,
          name: decision.name,
          tenantId: DEFAULT_TENANT,
          decisionRequirementsId: result.definitionId,
          decisionDefinitionKey: resourceKey(result.digest, index + 2),
          decisionRequirementsKey: requirementsKey,
        },
      })),
    ];
  }
  return catalog.ofDeployment(result.digest).map((process) => ({
    processDefinition: {
      processDefinitionId: process.processDefinitionId,
      processDefinitionVersion: process.processDefinitionVersion,
      resourceName,
      tenantId: DEFAULT_TENANT,
      processDefinitionKey: process.processDefinitionKey,
    },
  }));
}

export const deploymentOperations = { createDeployment } satisfies Record<string, Operation>;
