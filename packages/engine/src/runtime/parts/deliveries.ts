import { randomUUID } from 'node:crypto';
import { canonicalBytes, type Deployment, type Repository, type Variables } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import { AlreadyExistsError, InstanceHeldError } from '../../common/errors.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef, ProcessModel } from '../../model/process-types.js';
import type { CorrelateOptions, CorrelateResult, SignalOptions } from '../base/types.js';
import { liveDeployments } from '../deployments/deletions.js';
import { HANDOVER_TTL_MS, signalInbox } from '../leases/handover.js';
import type { InstanceRuntime } from '../loop/instance-runtime.js';

/** What delivering messages and signals needs from the engine. */
export interface DeliveryHost {
  repository: Repository;
  /** Stamps buffered messages: `publishedAt` and `expiresAt` are read on it. */
  clock: Clock;
  /** The loaded instances. */
  loaded(): Iterable<[string, InstanceRuntime]>;
  /** An instance's loop, restored from the repository when it is not loaded. */
  runtime(instanceId: string): Promise<InstanceRuntime>;
  /** The compiled model of a deployment. */
  model(deployment: Deployment): Promise<ProcessModel>;
  /** Start an instance at a given start event. */
  startAt(deployment: Deployment, process: ProcessDef, startNode: string, variables: Variables): Promise<string>;
}

const subscribed =
  (kind: 'message' | 'signal', name: string, key: string | null) =>
  (state: InstanceState): boolean =>
    [...state.subscriptions.values()].some(
      (s) => s.kind === kind && s.name === name && (kind === 'signal' || s.correlationKey === key),
    );

/** Instances waiting on an indexed subscription: the loaded ones, and the stored ones the repository names. */
async function waitingInstances(
  host: DeliveryHost,
  indexName: string,
  key: string | null,
  waiting: (state: InstanceState) => boolean,
): Promise<string[]> {
  const ids = new Set(await host.repository.subscriptions(indexName, key));
  for (const [id, runtime] of host.loaded()) if (waiting(runtime.current)) ids.add(id);
  return [...ids].sort();
}

/** The start events of the latest deployment of each definition that a message or signal of `name` starts. */
async function eventStarts(
  host: DeliveryHost,
  kind: 'message' | 'signal',
  name: string,
): Promise<{ deployment: Deployment; process: ProcessDef; startNode: string }[]> {
  const latest = new Map<string, Deployment>();
  for (const deployment of liveDeployments(await host.repository.deployments())) {
    latest.set(deployment.definitionId, deployment);
  }
  const found: { deployment: Deployment; process: ProcessDef; startNode: string }[] = [];
  for (const deployment of latest.values()) {
    for (const process of (await host.model(deployment)).processes.values()) {
      if (!process.executable) continue;
      for (const id of process.eventStartNodes ?? []) {
        const node = process.nodes.get(id);
        const event = node?.type === 'startEvent' ? node.event : undefined;
        if (event?.kind !== kind) continue;
        let literal: unknown;
        try {
          literal = JSON.parse(event.name.source);
        } catch {
          continue;
        }
        if (literal === name) found.push({ deployment, process, startNode: id });
      }
    }
  }
  return found;
}

/**
 * Deliver a message: to the first instance (by id) waiting for it, else by starting an instance at a message
 * start event of that name, else — with a `timeToLive` — into the repository's buffer, where the first
 * instance to subscribe to its name and key within that time takes it (`InstanceRuntime#takeBuffered`).
 */
export async function correlateMessage(
  host: DeliveryHost,
  name: string,
  options: CorrelateOptions,
): Promise<CorrelateResult> {
  const variables = options.variables ?? {};
  const bytes = canonicalBytes(variables, '$variables');
  const timeToLive = options.timeToLive ?? 0;
  if (!Number.isFinite(timeToLive) || timeToLive < 0) {
    throw new RangeError(`timeToLive must be a finite number of milliseconds, 0 or more, not ${timeToLive}`);
  }
  const key =
    options.correlationKey === undefined || options.correlationKey === null ? null : String(options.correlationKey);
  const waiting = subscribed('message', name, key);
  for (const instanceId of await waitingInstances(host, `message:${name}`, key, waiting)) {
    let runtime: InstanceRuntime;
    try {
      runtime = await host.runtime(instanceId);
    } catch (error) {
      if (!(error instanceof InstanceHeldError)) throw error;
      // Another engine runs it: hand the message over through the store's buffer, which its holder drains.
      await buffer(host, name, key, bytes, options.messageId, Math.max(timeToLive, HANDOVER_TTL_MS));
      return { correlated: false, buffered: true, instanceId: null, heldElsewhere: instanceId };
    }
    if (!waiting(runtime.current)) continue;
    const messageId = options.messageId ?? null;
    await runtime.submit({
      type: 'message.correlated',
      name,
      correlationKey: key,
      variables: { ...variables },
      messageId,
    });
    return { correlated: true, instanceId };
  }
  const [start] = await eventStarts(host, 'message', name);
  if (start) {
    const instanceId = await host.startAt(start.deployment, start.process, start.startNode, { ...variables });
    return { correlated: true, instanceId };
  }
  if (timeToLive === 0) return { correlated: false, instanceId: null };

  const id = await buffer(host, name, key, bytes, options.messageId, timeToLive);
  if (id === undefined) {
    throw new AlreadyExistsError(
      `message "${name}" with messageId "${options.messageId}" is buffered already, until it is taken or expires`,
    );
  }
  // An instance that subscribed after we looked found the buffer without this message: offer it the buffer
  // now. A subscription made after this look finds the message in the buffer by itself.
  for (const instanceId of await waitingInstances(host, `message:${name}`, key, waiting)) {
    // Restoring a stored instance already takes what the buffer holds for it.
    const runtime = await host.runtime(instanceId);
    if (waiting(runtime.current)) await runtime.takeBuffered();
    if (runtime.current.instance.receivedIds.includes(id)) return { correlated: true, instanceId };
  }
  return { correlated: false, buffered: true, instanceId: null };
}

/**
 * Keep a message in the store's buffer; returns its id, or undefined when its id is buffered already (that message
 * stays as it was).
 */
async function buffer(
  host: DeliveryHost,
  name: string,
  correlationKey: string | null,
  variables: Uint8Array,
  messageId: string | undefined,
  timeToLive: number,
): Promise<string | undefined> {
  const id = messageId ?? randomUUID();
  const publishedAt = host.clock.now();
  const stored = await host.repository.putMessage({
    id,
    name,
    correlationKey,
    variables,
    publishedAt,
    expiresAt: publishedAt + timeToLive,
  });
  return stored ? id : undefined;
}

export async function broadcastSignal(host: DeliveryHost, name: string, options: SignalOptions): Promise<string[]> {
  const variables = options.variables ?? {};
  const waiting = subscribed('signal', name, null);
  const reached: string[] = [];
  const bytes = canonicalBytes(variables, '$variables');
  for (const instanceId of await waitingInstances(host, `signal:${name}`, null, waiting)) {
    let runtime: InstanceRuntime;
    try {
      runtime = await host.runtime(instanceId);
    } catch (error) {
      if (!(error instanceof InstanceHeldError)) throw error;
      // Another engine runs it: the signal goes to it through the store, addressed to this instance alone.
      const id = `${options.signalId ?? randomUUID()}@${instanceId}`;
      await buffer(host, signalInbox(name), instanceId, bytes, id, HANDOVER_TTL_MS);
      reached.push(instanceId);
      continue;
    }
    if (!waiting(runtime.current)) continue;
    const signalId = options.signalId ?? null;
    await runtime.submit({ type: 'signal.received', name, variables: { ...variables }, signalId });
    reached.push(instanceId);
  }
  for (const start of await eventStarts(host, 'signal', name)) {
    reached.push(await host.startAt(start.deployment, start.process, start.startNode, { ...variables }));
  }
  return reached;
}
