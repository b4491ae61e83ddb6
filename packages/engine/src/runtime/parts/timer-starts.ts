import { ConflictError, type Deployment } from '@thresher/checkpoint';
import type { ProcessModel } from '../../model/process-types.js';
import { deploymentTimerStartPrefix, TIMER_START_PREFIX, timerStartInstanceId } from '../../timers/occurrences.js';
import type { TimerSchedule } from '../../timers/schedule.js';
import { latestLive } from '../deployments/deletions.js';
import type { DeliveryHost } from './deliveries.js';

/** What scheduling timer start events needs from the engine. */
export interface TimerStartHost extends DeliveryHost {
  /** Start an instance with a given id; its timer start waits for `timer` when given. */
  startWith(
    deployment: Deployment,
    processId: string,
    startNode: string,
    options: { id: string; timer?: TimerSchedule },
  ): Promise<string>;
  cancel(instanceId: string): Promise<void>;
}

async function isLatest(host: TimerStartHost, deployment: Deployment): Promise<boolean> {
  return (await latestLive(host.repository, deployment.definitionId))?.digest === deployment.digest;
}

/** Create the instance for one occurrence of a timer start event, unless it exists or a newer version took over. */
export async function startOccurrence(
  host: TimerStartHost,
  digest: string,
  processId: string,
  startNode: string,
  occurrence: number,
  timer?: TimerSchedule,
): Promise<void> {
  const deployment = await host.repository.getDeployment(digest);
  if (!deployment || !(await isLatest(host, deployment))) return;
  const id = timerStartInstanceId(digest, startNode, occurrence);
  if (await host.repository.get(id)) return;
  try {
    await host.startWith(deployment, processId, startNode, { id, ...(timer ? { timer } : {}) });
  } catch (error) {
    // Another delivery of the same occurrence got there first: the instance exists, which is the point.
    if (!(error instanceof ConflictError)) throw error;
  }
}

/**
 * After a deploy: the latest version of a definition owns its timer start events. Cancel the waiting
 * occurrences of older versions, and create the first occurrence of each timer start event of this one.
 */
export async function scheduleTimerStarts(
  host: TimerStartHost,
  deployment: Deployment,
  model: ProcessModel,
): Promise<void> {
  const starts: { processId: string; startNode: string }[] = [];
  for (const process of model.processes.values()) {
    if (!process.executable) continue;
    for (const id of process.eventStartNodes ?? []) {
      const node = process.nodes.get(id);
      if (node?.type === 'startEvent' && node.event?.kind === 'timer')
        starts.push({ processId: process.id, startNode: id });
    }
  }
  if (!(await isLatest(host, deployment))) return;
  const own = deploymentTimerStartPrefix(deployment.digest);
  await cancelWaitingOccurrences(host, deployment.definitionId, (id) => !id.startsWith(own));
  for (const { processId, startNode } of starts)
    await startOccurrence(host, deployment.digest, processId, startNode, 0);
}

/**
 * Cancel the timer start occurrences of a definition's versions that `which` picks and that still wait for their
 * timer (no track has left the start event): another version takes over from here, or none (a deleted one).
 */
export async function cancelWaitingOccurrences(
  host: TimerStartHost,
  definitionId: string,
  which: (instanceId: string) => boolean,
): Promise<void> {
  for (const summary of await host.repository.instances({ definition: definitionId, status: 'running' })) {
    if (!summary.instanceId.startsWith(TIMER_START_PREFIX) || !which(summary.instanceId)) continue;
    if (await waitsAtStart(host, summary.instanceId)) await host.cancel(summary.instanceId);
  }
}

/** Whether an instance still waits at its start event (a timer start occurrence whose timer has not fired). */
export async function waitsAtStart(host: TimerStartHost, instanceId: string): Promise<boolean> {
  const runtime = await host.runtime(instanceId);
  const tracks = [...runtime.current.tracks.values()];
  const atStart = (nodeId: string) => runtime.definition.nodes.get(nodeId)?.type === 'startEvent';
  return tracks.length > 0 && tracks.every((track) => track.wait?.kind === 'event' && atStart(track.nodeId));
}
