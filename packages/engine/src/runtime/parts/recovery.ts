import { isGone } from '../base/owners.js';
import type { RecoverReport } from '../base/types.js';
import type { EngineParts } from './engine-parts.js';
import type { Instances } from './instances.js';

/** `recover` reads the heads of this many instances at a time (one store read each batch). */
const RESTORE_BATCH = 500;
/** Running instances are listed from the store's index this many at a time. */
const ID_PAGE = 5000;

/**
 * Restore every running instance (or the given ones) from the repository and continue each where it was;
 * one that cannot be restored is reported and the others go on. A full recover (no `instanceIds`) then takes
 * up the ended instances a stopped holder left under its lease, and deletes the buffered messages that have
 * expired: after the restores, so that none an instance took in time is dropped before it is delivered.
 */
export async function recoverInstances(
  parts: EngineParts,
  instanceIds?: string[],
  /** Told after each batch how many of the instances have been tried, of how many. */
  onProgress?: (tried: number, total: number) => void,
): Promise<RecoverReport> {
  const { leases, instances, repository } = parts;
  const ids = instanceIds ?? (await runningInstanceIds(parts));
  const report: RecoverReport = { restored: [], failed: [] };
  // One claim per batch, not per instance; those held elsewhere are reported one by one below.
  await leases.claim(ids.filter((id) => !instances.loaded(id)));
  for (let at = 0; at < ids.length; at += RESTORE_BATCH) {
    const batch = ids.slice(at, at + RESTORE_BATCH);
    // The heads of those this engine holds in one read, after the claim; the others are read one by one.
    await instances.readAhead(batch);
    for (const instanceId of batch) await restoreInto(instances, instanceId, report);
    instances.dropPrefetched();
    onProgress?.(at + batch.length, ids.length);
  }
  if (instanceIds === undefined) {
    await takeUpLeftBehind(parts, report);
    await repository.expireMessages(parts.clock.now());
  }
  return report;
}

/**
 * Ended instances whose holder stopped before letting go (its lease lapsed, or it is an engine known gone): it
 * may not have published the events of the write that ended them, nor made the deliveries their end owes.
 * Each is restored to do both.
 */
async function takeUpLeftBehind({ leases, instances, repository }: EngineParts, report: RecoverReport): Promise<void> {
  const gone = (await repository.leaseOwners()).filter(isGone);
  for (;;) {
    const ids = await leases.claimLapsed(RESTORE_BATCH, gone);
    if (ids.length === 0) return;
    await instances.readAhead(ids);
    for (const instanceId of ids) await restoreInto(instances, instanceId, report);
    instances.dropPrefetched();
  }
}

/**
 * Restore one instance, reporting it restored or failed. One that had ended (another engine ran it to its end
 * meanwhile, or its end was only owed its events and deliveries) is not reported restored.
 */
async function restoreInto(instances: Instances, instanceId: string, report: RecoverReport): Promise<void> {
  try {
    const runtime = await instances.runtime(instanceId);
    if (!instances.wasEndedWhenRead(runtime)) report.restored.push(instanceId);
  } catch (error) {
    report.failed.push({ instanceId, error: error instanceof Error ? error : new Error(String(error)) });
  }
}

async function runningInstanceIds({ repository }: EngineParts): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await repository.instanceIds({ status: 'running', limit: ID_PAGE, ...(after ? { after } : {}) });
    for (const id of page) ids.push(id);
    if (page.length < ID_PAGE) return ids;
    after = page[page.length - 1]!;
  }
}
