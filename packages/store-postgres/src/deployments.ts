/**
 * Deployments on PostgreSQL: `putDeployment` runs inside the transaction the repository opens and takes a
 * table lock for its short insert (deployments are rare), so versions per definition id have no gaps.
 */
import type { Deployment, DeploymentInput } from '@thresher/checkpoint';
import { type DeploymentRow, newDeployment, toDeployment } from '@thresher/checkpoint/store-kit';
import type { PgQueryable } from './driver.js';
import { deploymentParams, type Int8 } from './rows.js';
import type { Statements } from './statements.js';

/** `putDeployment`: the stored deployment of the digest, else a new one with the definition's next version. */
export async function putDeployment(client: PgQueryable, sql: Statements, input: DeploymentInput): Promise<Deployment> {
  await client.query(sql.lockDeployments);
  const existing = await client.query<DeploymentRow<Int8>>(sql.selectDeployment, [input.digest]);
  if (existing.rows[0] !== undefined) return toDeployment(existing.rows[0]);
  const next = await client.query<{ version: number }>(sql.selectNextVersion, [input.definitionId]);
  const version = Number(next.rows[0]!.version);
  await client.query(sql.insertDeployment, deploymentParams(input, version));
  return newDeployment(input, version);
}

/** `getDeployment`: the deployment of a digest. */
export async function readDeployment(
  db: PgQueryable,
  sql: Statements,
  digest: string,
): Promise<Deployment | undefined> {
  const { rows } = await db.query<DeploymentRow<Int8>>(sql.selectDeployment, [digest]);
  return rows[0] === undefined ? undefined : toDeployment(rows[0]);
}

/** `deployments`: every deployment, or those of one definition id, oldest first. */
export async function readDeployments(db: PgQueryable, sql: Statements, definitionId?: string): Promise<Deployment[]> {
  const { rows } =
    definitionId === undefined
      ? await db.query<DeploymentRow<Int8>>(sql.selectDeployments, [])
      : await db.query<DeploymentRow<Int8>>(sql.selectDeploymentsOf, [definitionId]);
  return rows.map(toDeployment);
}
