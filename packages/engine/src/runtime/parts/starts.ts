import { checkEncodable, type Deployment, type Repository, type Variables } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import { InstanceHeldError, InvalidArgumentError, InvalidStateError, NotFoundError } from '../../common/errors.js';
import { newInstanceBody } from '../../core/step/records.js';
import { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/process-types.js';
import type { TimerSchedule } from '../../timers/schedule.js';
import { newInstanceId } from '../base/instance-ids.js';
import { isTraceparent } from '../base/telemetry.js';
import type { StartOptions } from '../base/types.js';
import { type Definitions, isStaleDeployments, type StartChoice } from '../deployments/definitions.js';
import { isDeleted } from '../deployments/deletions.js';
import { InstanceRuntime } from '../loop/instance-runtime.js';
import type { LoopHost } from '../loop/loop-host.js';
import type { ParentLink } from './call-links.js';
import type { Instances } from './instances.js';

/** What starting an instance needs from the engine. */
export interface StartHost {
  readonly clock: Clock;
  readonly loopHost: LoopHost<InstanceRuntime>;
  readonly instances: Instances;
}

/** How an instance comes to be, beside its deployment, process, start node and variables. */
export interface StartHow {
  businessKey?: string;
  /** Its id when it is chosen for it (a timer start's occurrence, a called child); a new UUIDv7 otherwise. */
  id?: string;
  /** A timer start event's occurrence: the schedule its start waits for. */
  timer?: TimerSchedule;
  /** A called child's link to its parent. */
  link?: ParentLink;
  /** How many deployments `deployment` was chosen among, for the store to check at the first put. */
  deploymentsSeen?: number;
  /** The W3C `traceparent` the instance's spans join (the caller's, or a calling parent's). */
  traceContext?: string;
}

/**
 * Create an instance and run it from `startNode` (a none start, or the event start an event triggered): its
 * first step is its first put, which claims its lease. Returns its id.
 */
export async function startInstance(
  host: StartHost,
  deployment: Deployment,
  process: ProcessDef,
  startNode: string,
  variables: Variables,
  how: StartHow = {},
): Promise<string> {
  checkEncodable(variables, '$variables'); // refused before anything exists; the first put encodes them, once
  const id = how.id ?? newInstanceId();
  const { link } = how;
  const body = newInstanceBody({
    id,
    processId: process.id,
    definition: { id: deployment.definitionId, version: deployment.version, digest: deployment.digest },
    status: 'running',
    businessKey: how.businessKey ?? null,
    parentId: link?.parentId ?? null,
    callNodeId: link?.callNodeId ?? null,
    ...(link ? { callerTrack: link.callerTrack } : {}),
    startedAt: host.clock.now(),
    endedAt: null,
    nextId: 0,
    receivedIds: [],
  });
  const traceContext = host.loopHost.telemetry.open(body.instance, how.traceContext);
  if (traceContext !== undefined) body.instance.traceContext = traceContext;
  const state = new InstanceState(body);
  const runtime = new InstanceRuntime(host.loopHost, process, state, null, how.deploymentsSeen);
  host.instances.add(runtime);
  try {
    await runtime.submit({
      type: 'instance.start',
      variables: { ...variables },
      startNode,
      ...(how.timer ? { timer: how.timer } : {}),
    });
  } catch (error) {
    host.instances.drop(id);
    host.loopHost.telemetry.left(id);
    // Stored, then claimed by another engine before this one could: it runs there, it was started.
    if (error instanceof InstanceHeldError && error.instanceId === id) return id;
    throw error;
  }
  return id;
}

/** How often `start` chooses a deployment again when others were deployed meanwhile, before it gives up. */
const MAX_CHOICES = 10;

/**
 * `engine.start`: an instance of the process's latest deployed version (or of `options.digest`), from its none
 * start event. A start chosen among deployments read before another was deployed stores nothing, and chooses again.
 */
export async function startProcess(
  host: StartHost & { readonly definitions: Definitions; readonly repository: Repository },
  processId: string,
  options: StartOptions,
): Promise<string> {
  const { variables = {}, businessKey, traceContext } = options;
  if (traceContext !== undefined && (typeof traceContext !== 'string' || !isTraceparent(traceContext))) {
    throw new InvalidArgumentError(
      `start: traceContext ${JSON.stringify(traceContext)} is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)`,
    );
  }
  if (options.digest !== undefined && (await isDeleted(host.repository, options.digest))) {
    throw new NotFoundError('process', `${processId}@${options.digest} (its deployment is deleted)`);
  }
  for (let choice = 1; ; choice++) {
    const chosen: StartChoice =
      options.digest === undefined
        ? await host.definitions.chooseToStart(processId)
        : await host.definitions.findProcess(processId, options.digest);
    const { deployment, process, deploymentsSeen } = chosen;
    const startNode = process.startNodes[0];
    if (!startNode) {
      const starts = (process.eventStartNodes ?? []).join(', ');
      throw new InvalidStateError(`process ${processId} has no none start event: it starts by its events (${starts})`);
    }
    try {
      return await startInstance(host, deployment, process, startNode, variables, {
        ...(businessKey === undefined ? {} : { businessKey }),
        ...(traceContext === undefined ? {} : { traceContext }),
        deploymentsSeen,
      });
    } catch (error) {
      if (!isStaleDeployments(error) || choice >= MAX_CHOICES) throw error;
      host.definitions.forget();
    }
  }
}
