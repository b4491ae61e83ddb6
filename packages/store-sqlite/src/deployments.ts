/**
 * Deployments on SQLite: `putDeployment` runs inside the BEGIN IMMEDIATE transaction the repository opens,
 * so the version it numbers is not taken by a concurrent deploy of the same definition.
 */
import type { Deployment, DeploymentInput } from '@thresher/checkpoint';
import { type DeploymentRow, newDeployment, toDeployment } from '@thresher/checkpoint/store-kit';
import { deploymentParams } from './rows.js';
import type { Statements } from './statements.js';

/** `putDeployment`: the stored deployment of the digest, else a new one with the definition's next version. */
export function putDeployment(sql: Statements, input: DeploymentInput): Deployment {
  const existing = sql.selectDeployment.get(input.digest) as DeploymentRow | undefined;
  if (existing !== undefined) return toDeployment(existing);
  const { version } = sql.selectNextVersion.get(input.definitionId) as { version: number };
  sql.insertDeployment.run(deploymentParams(input, version));
  return newDeployment(input, version);
}

/** `getDeployment`: the deployment of a digest. */
export function readDeployment(sql: Statements, digest: string): Deployment | undefined {
  const row = sql.selectDeployment.get(digest) as DeploymentRow | undefined;
  return row === undefined ? undefined : toDeployment(row);
}

/** `deployments`: every deployment, or those of one definition id, oldest first. */
export function readDeployments(sql: Statements, definitionId?: string): Deployment[] {
  const rows = (
    definitionId === undefined ? sql.selectDeployments.all() : sql.selectDeploymentsOf.all(definitionId)
  ) as DeploymentRow[];
  return rows.map(toDeployment);
}
