import { liveDeployments } from '@thresher/engine';
import { resourceKey } from '../keys.js';
import type { Call } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { DEFAULT_TENANT } from '../tenants.js';

/**
 * A linked Camunda form (`zeebe:formDefinition formId`) as Camunda answers it: the latest deployment of that form
 * id (Zeebe binds the version when the task or instance is created: differs), or a 404 naming who links it.
 */
export async function linkedForm(
  call: Call,
  formId: string,
  owner: string,
): Promise<{ status: 200; body: Record<string, unknown> }> {
  const live = liveDeployments(await call.engine.deployments());
  const deployment = live.filter((candidate) => candidate.definitionId === `form:${formId}`).at(-1);
  if (deployment === undefined) {
    throw new Problem(ProblemKind.NotFound, `${owner} links form "${formId}", which no deployment holds`);
  }
  return {
    status: 200,
    body: {
      tenantId: DEFAULT_TENANT,
      formId,
      schema: deployment.xml,
      version: deployment.version,
      formKey: resourceKey(deployment.digest, 1),
    },
  };
}
