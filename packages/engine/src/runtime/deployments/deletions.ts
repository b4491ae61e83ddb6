/**
 * Deleted deployments (`engine.deleteDeployment`), as Zeebe deletes a resource: a deleted file starts no instance,
 * is no latest version and is found by no search for one, while the instances that ran on it keep their history.
 * The repository needs nothing new: a deletion is a record of its own — its definitions id `deleted:` and the
 * file's digest, its text saying deleted or deployed again — and the latest such record of a file decides.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Deployment, DeploymentInput, Repository } from '@thresher/checkpoint';

/** The prefix of a deletion record's definitions id, which no BPMN or DMN definitions id (an XML id) can carry. */
export const DELETION_DEFINITION = 'deleted:';

const ROOT = 'thresher-deletion';

/** A record saying the file `digest` is deleted, or (`deployed`) deployed again since. */
export function deletionRecord(digest: string, state: 'deleted' | 'deployed', deployedAt: number): DeploymentInput {
  const xml = `<${ROOT} digest="${digest}" state="${state}"/>`;
  return {
    definitionId: `${DELETION_DEFINITION}${digest}`,
    // Each record is one of its own: the same file deleted, deployed and deleted again keeps every step.
    digest: createHash('sha256').update(`${xml}\n${randomUUID()}`).digest('hex'),
    xml,
    deployedAt,
  };
}

/** Whether a stored deployment is a deletion record. */
export function isDeletion(deployment: Deployment): boolean {
  return deployment.definitionId.startsWith(DELETION_DEFINITION) && deployment.xml.startsWith(`<${ROOT} `);
}

/** Whether the latest of a file's deletion records (oldest first) says it is deleted. */
export function isDeletedBy(records: readonly Deployment[]): boolean {
  return records.at(-1)?.xml.includes('state="deleted"') === true;
}

/** The digests of the files deleted, from every deployment, oldest first. */
export function deletedDigests(deployments: readonly Deployment[]): Set<string> {
  const deleted = new Set<string>();
  for (const deployment of deployments) {
    if (!isDeletion(deployment)) continue;
    const digest = deployment.definitionId.slice(DELETION_DEFINITION.length);
    if (isDeletedBy([deployment])) deleted.add(digest);
    else deleted.delete(digest);
  }
  return deleted;
}

/** The deployments that can start instances and be found: every one but the deleted files and the deletion records. */
export function liveDeployments(deployments: readonly Deployment[]): Deployment[] {
  const deleted = deletedDigests(deployments);
  return deployments.filter((deployment) => !isDeletion(deployment) && !deleted.has(deployment.digest));
}

/** Whether the file `digest` is deleted now. */
export async function isDeleted(repository: Repository, digest: string): Promise<boolean> {
  return isDeletedBy(await repository.deployments(`${DELETION_DEFINITION}${digest}`));
}

/** The latest deployment of a definition id that is not deleted. */
export async function latestLive(repository: Repository, definitionId: string): Promise<Deployment | undefined> {
  for (const deployment of (await repository.deployments(definitionId)).reverse()) {
    if (!(await isDeleted(repository, deployment.digest))) return deployment;
  }
  return undefined;
}
