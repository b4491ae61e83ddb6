/** Deployments in memory: in deployment order, and by digest. */
import { checkDeploymentArguments } from '../input-rules.js';
import type { Deployment, DeploymentInput } from '../repository-types.js';
import type { MemoryState } from './state.js';

export function putDeployment(state: MemoryState, input: DeploymentInput): Deployment {
  checkDeploymentArguments(input);
  const existing = state.deploymentsByDigest.get(input.digest);
  if (existing !== undefined) return { ...existing };
  let version = 1;
  for (const deployment of state.deploymentsInOrder) {
    if (deployment.definitionId === input.definitionId) version = Math.max(version, deployment.version + 1);
  }
  const deployment: Deployment = {
    definitionId: input.definitionId,
    digest: input.digest,
    xml: input.xml,
    deployedAt: input.deployedAt,
    version,
  };
  state.deploymentsInOrder.push(deployment);
  state.deploymentsByDigest.set(deployment.digest, deployment);
  return { ...deployment };
}

export function readDeployment(state: MemoryState, digest: string): Deployment | undefined {
  const deployment = state.deploymentsByDigest.get(digest);
  return deployment === undefined ? undefined : { ...deployment };
}

export function readDeployments(state: MemoryState, definitionId?: string): Deployment[] {
  return state.deploymentsInOrder
    .filter((deployment) => definitionId === undefined || deployment.definitionId === definitionId)
    .map((deployment) => ({ ...deployment }));
}
