/**
 * Publishing a message, as Zeebe correlates one: to at most one instance of each BPMN process id — the first
 * waiting (by instance id) of each process that waits for it, else a new instance of each process with a message
 * start event of its name — and, with a `timeToLive`, kept in the store's buffer once per process that may wait for
 * it, so an instance of such a process that starts waiting within that time takes it (one per process, exactly
 * once: the store hands a copy to one taker alone). A `messageId` buffered already for that name and key is refused.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { canonicalBytes, type Deployment, type Variables } from '@thresher/checkpoint';
import { AlreadyExistsError, InstanceHeldError } from '../../common/errors.js';
import type { ProcessDef } from '../../model/process-types.js';
import type { CorrelateOptions, CorrelateResult } from '../base/types.js';
import { liveDeployments } from '../deployments/deletions.js';
import { openStored } from '../document/capture.js';
import { HANDOVER_TTL_MS } from '../leases/handover.js';
import { processBuffer } from '../loop/buffered-messages.js';
import type { InstanceRuntime } from '../loop/instance-runtime.js';
import { type DeliveryHost, eventStarts, subscribed, waitingInstances } from './deliveries.js';

/** The copy kept under the bare name, which an instance of any process takes (as every copy was before). */
const ANY_PROCESS = '';

const CATCHING = new Set(['intermediateCatchEvent', 'boundaryEvent', 'receiveTask', 'startEvent']);

/** Whether a process may wait for a message of `name`: it catches it by name, or by a name an expression makes. */
function mayWaitFor(process: ProcessDef, name: string): boolean {
  const starts = new Set(process.eventStartNodes ?? []);
  for (const node of process.nodes.values()) {
    if (!CATCHING.has(node.type) || !('event' in node) || node.event?.kind !== 'message') continue;
    // A process's own message start events start instances; they wait for nothing (an event sub-process's do).
    if (node.type === 'startEvent' && starts.has(node.id) && node.container === process.id) continue;
    let literal: unknown;
    try {
      literal = JSON.parse(node.event.name.source);
    } catch {
      return true;
    }
    if (literal === name) return true;
  }
  return false;
}

/** The BPMN process ids whose instances may wait for a message of `name`, over every version not deleted. */
async function processesWaitingFor(host: DeliveryHost, name: string, deployments: readonly Deployment[]) {
  const found = new Set<string>();
  for (const deployment of deployments) {
    for (const process of (await host.model(deployment)).processes.values()) {
      if (process.executable && !found.has(process.id) && mayWaitFor(process, name)) found.add(process.id);
    }
  }
  return [...found].sort();
}

/**
 * The id of a message's copy for a process: the publication's id (its `messageId`, else a new one), a separator, and
 * a hash of its name, key and process — one copy per process, and a `messageId` unique per name and key.
 */
export function copyId(publication: string, name: string, key: string | null, processId: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([name, key, processId]))
    .digest('hex');
  return `${publication}\u001f${hash.slice(0, 32)}`;
}

export async function correlateMessage(
  host: DeliveryHost,
  name: string,
  options: CorrelateOptions,
): Promise<CorrelateResult> {
  const variables: Variables = options.variables ?? {};
  const bytes = canonicalBytes(variables, '$variables');
  const timeToLive = options.timeToLive ?? 0;
  if (!Number.isFinite(timeToLive) || timeToLive < 0) {
    throw new RangeError(`timeToLive must be a finite number of milliseconds, 0 or more, not ${timeToLive}`);
  }
  const key =
    options.correlationKey === undefined || options.correlationKey === null ? null : String(options.correlationKey);
  const publishedAt = host.clock.now();
  const publication = options.messageId ?? randomUUID();
  /** The copies this publication keeps in the buffer, by process id. */
  const copies = new Map<string, string>();
  const keep = async (processId: string, ttl: number): Promise<boolean> => {
    const id = copyId(publication, name, key, processId);
    const bufferName = processId === ANY_PROCESS ? name : processBuffer(name, processId);
    const message = { id, name: bufferName, correlationKey: key, variables: bytes, publishedAt };
    const stored = await host.repository.putMessage({ ...message, expiresAt: publishedAt + ttl });
    if (stored) copies.set(processId, id);
    return stored;
  };
  // Read once, for the processes to keep it for and those it starts; without a time-to-live, by `eventStarts`.
  const deployments = timeToLive > 0 ? liveDeployments(await host.repository.deployments()) : undefined;
  if (deployments !== undefined) {
    const processes = await processesWaitingFor(host, name, deployments);
    // No process deployed may wait for it yet: kept once, for the first instance of any process deployed later.
    for (const processId of processes.length > 0 ? processes : [ANY_PROCESS]) {
      if (await keep(processId, timeToLive)) continue;
      for (const id of copies.values()) await host.repository.deleteMessage(id);
      throw new AlreadyExistsError(
        `message "${name}" with messageId "${options.messageId}" is buffered already, until it is taken or expires`,
      );
    }
  }
  /** The processes served, with the instance that took the message (null: handed to another engine's). */
  const served = new Map<string, string | null>();
  let heldElsewhere: string | undefined;
  const waiting = subscribed('message', name, key);
  const offer = async (): Promise<void> => {
    for (const instanceId of await waitingInstances(host, `message:${name}`, key, waiting)) {
      let runtime: InstanceRuntime;
      try {
        runtime = await host.runtime(instanceId);
      } catch (error) {
        if (!(error instanceof InstanceHeldError)) throw error;
        // Another engine runs it: its process's copy goes through the store's buffer, which its holder drains.
        const stored = await host.repository.get(instanceId);
        const processId = stored && openStored(stored).instance.processId;
        if (processId === undefined || served.has(processId)) continue;
        if (copies.has(processId) || (await keep(processId, HANDOVER_TTL_MS))) {
          served.set(processId, null);
          heldElsewhere ??= instanceId;
        }
        continue;
      }
      const processId = runtime.current.instance.processId;
      if (served.has(processId)) continue;
      if (copies.has(processId)) {
        // Taken through the buffer, as an instance subscribing now would take it: the store hands the copy to one
        // (restoring a stored instance took it already).
        if (waiting(runtime.current)) await runtime.takeBuffered();
        if (runtime.current.instance.receivedIds.includes(publication)) served.set(processId, instanceId);
        continue;
      }
      if (!waiting(runtime.current)) continue;
      await runtime.submit({
        type: 'message.correlated',
        name,
        correlationKey: key,
        variables: { ...variables },
        messageId: options.messageId ?? null,
      });
      served.set(processId, instanceId);
    }
  };
  await offer();
  for (const start of await eventStarts(host, 'message', name, deployments)) {
    if (served.has(start.process.id)) continue;
    const copy = copies.get(start.process.id);
    // The instance it starts took the message: no instance of its process takes the copy after it.
    if (copy !== undefined) await host.repository.deleteMessage(copy);
    served.set(
      start.process.id,
      await host.startAt(start.deployment, start.process, start.startNode, { ...variables }),
    );
  }
  // An instance that subscribed while we looked, where the index did not show it yet: offer it its copy now.
  if ([...copies.keys()].some((processId) => !served.has(processId))) await offer();
  const instanceIds = [...served.values()].filter((id): id is string => id !== null);
  const kept = [...copies.keys()].some((processId) => !served.has(processId));
  return {
    correlated: instanceIds.length > 0,
    instanceId: instanceIds[0] ?? null,
    instanceIds,
    ...(instanceIds.length === 0 && (kept || heldElsewhere !== undefined) ? { buffered: true } : {}),
    ...(heldElsewhere === undefined ? {} : { heldElsewhere }),
  };
}
