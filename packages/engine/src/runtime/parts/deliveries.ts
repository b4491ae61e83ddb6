import { randomUUID } from 'node:crypto';
import { canonicalBytes, type Deployment, type Repository, type Variables } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import { InstanceHeldError } from '../../common/errors.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef, ProcessModel } from '../../model/process-types.js';
import type { SignalOptions } from '../base/types.js';
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

export const subscribed =
  (kind: 'message' | 'signal', name: string, key: string | null) =>
  (state: InstanceState): boolean =>
    [...state.subscriptions.values()].some(
      (s) => s.kind === kind && s.name === name && (kind === 'signal' || s.correlationKey === key),
    );

/** Instances waiting on an indexed subscription: the loaded ones, and the stored ones the repository names. */
export async function waitingInstances(
  host: DeliveryHost,
  indexName: string,
  key: string | null,
  waiting: (state: InstanceState) => boolean,
): Promise<string[]> {
  const ids = new Set(await host.repository.subscriptions(indexName, key));
  for (const [id, runtime] of host.loaded()) if (waiting(runtime.current)) ids.add(id);
  return [...ids].sort();
}

/**
 * The start events of the latest deployment of each definition that a message or signal of `name` starts, among
 * `deployments` (the live ones, oldest first) when the caller read them already.
 */
export async function eventStarts(
  host: DeliveryHost,
  kind: 'message' | 'signal',
  name: string,
  deployments?: readonly Deployment[],
): Promise<{ deployment: Deployment; process: ProcessDef; startNode: string }[]> {
  const latest = new Map<string, Deployment>();
  for (const deployment of deployments ?? liveDeployments(await host.repository.deployments())) {
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
