/**
 * Deleting a deployed file, as Zeebe deletes a resource: a deletion record is stored, its timer start occurrences
 * still waiting are cancelled, and the version before it (if any) owns its definition's timer starts again. The
 * instances running on it run on to their end (Zeebe drains them the same way). A file deployed again is live again.
 *
 * @module
 */
import { NotFoundError } from '../../common/errors.js';
import { deploymentTimerStartPrefix } from '../../timers/occurrences.js';
import { isDecisionDeployment } from '../deployments/decisions.js';
import { deletionRecord, isDeleted, isDeletion, latestLive } from '../deployments/deletions.js';
import { isManifest } from '../deployments/deployed-together.js';
import { isFormDeployment } from '../deployments/forms.js';
import type { EngineParts } from './engine-parts.js';
import { cancelWaitingOccurrences, scheduleTimerStarts } from './timer-starts.js';

export async function deleteDeployment(parts: EngineParts, digest: string): Promise<void> {
  const { repository } = parts;
  const deployment = await repository.getDeployment(digest);
  // A manifest of files deployed together, or a deletion record, is no file to delete.
  const file = deployment !== undefined && !isManifest(deployment) && !isDeletion(deployment);
  if (!file || (await isDeleted(repository, digest))) throw new NotFoundError('deployment', digest);
  const occurrences = deploymentTimerStartPrefix(digest);
  await repository.putDeployment(deletionRecord(digest, 'deleted', parts.clock.now()));
  parts.definitions.forget();
  parts.decisions.forget();
  if (isDecisionDeployment(deployment) || isFormDeployment(deployment)) return;
  await cancelWaitingOccurrences(parts.deliveries, deployment.definitionId, (id) => id.startsWith(occurrences));
  const previous = await latestLive(repository, deployment.definitionId);
  if (previous !== undefined) {
    await scheduleTimerStarts(parts.deliveries, previous, (await parts.definitions.from(previous)).model);
  }
}

/** After a deploy: a file deleted before is live again. */
export async function undelete(parts: EngineParts, digest: string): Promise<void> {
  if (!(await isDeleted(parts.repository, digest))) return;
  await parts.repository.putDeployment(deletionRecord(digest, 'deployed', parts.clock.now()));
  parts.definitions.forget();
  parts.decisions.forget();
}
