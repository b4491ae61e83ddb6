import {
  type CallOutboxEntry,
  ConflictError,
  type Deployment,
  LimitExceededError,
  type Repository,
  type Variables,
} from '@thresher/checkpoint';
import { EngineError, InstanceHeldError, NotFoundError, RestoreError } from '../../common/errors.js';
import { endedEntryId } from '../../core/step/outbox.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/process-types.js';
import type { Definitions } from '../deployments/definitions.js';
import { openStored } from '../document/capture.js';
import type { InstanceRuntime } from '../loop/instance-runtime.js';

/** A child's link to its parent, as its instance record carries it. */
export interface ParentLink {
  parentId: string;
  callNodeId: string;
  callerTrack: string;
}

/** What the call links need from the engine. */
export interface CallHost {
  repository: Repository;
  definitions: Definitions;
  /** The live loop of an instance, restored when it is not in memory. */
  runtime(instanceId: string): Promise<InstanceRuntime>;
  /** The live loop of an instance, only when it is in memory. */
  loaded(instanceId: string): InstanceRuntime | undefined;
  startChild(
    childId: string,
    deployment: Deployment,
    process: ProcessDef,
    startNode: string,
    variables: Variables,
    link: ParentLink,
    /** The parent's trace context: the child's spans join its trace. */
    traceContext: string | undefined,
  ): Promise<unknown>;
}

/** What a restored instance owes its call tree, found by {@link CallLinks.relink}. */
export interface Relinked {
  /** The parent no longer waits on this child (its cancel never arrived): cancel it instead of running it. */
  orphaned: boolean;
  /** Outcomes of children that ended while the parent was down, still to be taken. */
  ended: { childId: string; entry: Extract<CallOutboxEntry, { kind: 'toParent' }> }[];
  /** Children still running: they go on alongside their parent. */
  running: string[];
}

/**
 * The engine's side of call activities: performs the outbox entries a parent and its child send each other,
 * and checks, when either is restored, that the other is where it says — loudly when it is not.
 */
export class CallLinks {
  /** Deliveries in progress by child id: a cancel waits for the start it follows. */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly host: CallHost) {}

  /** Perform a call entry of `from`'s outbox; idempotent, so a delivery repeated after a crash changes nothing. */
  deliver(from: InstanceRuntime, entry: CallOutboxEntry): Promise<unknown> {
    switch (entry.kind) {
      case 'call':
        return this.serially(entry.childId, () => this.start(from, entry));
      case 'cancelChild':
        return this.serially(entry.childId, () => this.cancel(entry.childId));
      case 'toParent':
        return this.notify(from.id, entry);
    }
  }

  private serially(childId: string, work: () => Promise<unknown>): Promise<unknown> {
    const next = (this.pending.get(childId) ?? Promise.resolve()).then(work, work);
    const tracked = next.finally(() => {
      if (this.pending.get(childId) === tracked) this.pending.delete(childId);
    });
    this.pending.set(childId, tracked);
    return next;
  }

  private async start(parent: InstanceRuntime, entry: Extract<CallOutboxEntry, { kind: 'call' }>): Promise<void> {
    // Started before a crash: make sure it runs. Cancelled meanwhile: never started.
    if (await this.host.repository.get(entry.childId)) return this.running(entry.childId);
    if (!parent.current.callerOf(entry.childId)) return;
    let target: { deployment: Deployment; process: ProcessDef };
    try {
      target = await this.resolve(parent.current, entry);
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      return parent.submit({ type: 'call.failed', childId: entry.childId, error: error.message });
    }
    const { deployment, process } = target;
    const startNode = process.startNodes[0];
    if (!startNode) {
      const error = `process ${process.id} has no none start event, which a call activity starts it at`;
      return parent.submit({ type: 'call.failed', childId: entry.childId, error });
    }
    const link = { parentId: parent.id, callNodeId: entry.callNodeId, callerTrack: entry.callerTrack };
    try {
      const { traceContext } = parent.current.instance;
      await this.host.startChild(entry.childId, deployment, process, startNode, entry.variables, link, traceContext);
    } catch (error) {
      // Another delivery of the same start got there first: the child exists, which is the point.
      if (error instanceof ConflictError) return this.running(entry.childId);
      if (error instanceof LimitExceededError) {
        return parent.submit({ type: 'call.failed', childId: entry.childId, error: error.message });
      }
      throw error;
    }
  }

  /**
   * A child that exists runs somewhere: in another engine that holds it, or here. One whose start was stored
   * but whose engine died before claiming it holds no lease, so no worker takes it up by itself: restore it.
   */
  private async running(childId: string): Promise<void> {
    try {
      await this.host.runtime(childId);
    } catch (error) {
      if (!(error instanceof InstanceHeldError)) throw error;
    }
  }

  /** The deployment and process a call starts, as its binding says. */
  private async resolve(
    caller: InstanceState,
    entry: Extract<CallOutboxEntry, { kind: 'call' }>,
  ): Promise<{ deployment: Deployment; process: ProcessDef }> {
    const { definitions } = this.host;
    switch (entry.binding.kind) {
      case 'latest':
        return definitions.findProcess(entry.processId);
      case 'deployment':
        return definitions.findDeployedWith(entry.processId, caller.instance.definition.digest);
      case 'versionTag':
        return definitions.findTagged(entry.processId, entry.binding.versionTag);
    }
  }

  private async cancel(childId: string): Promise<void> {
    let child: InstanceRuntime;
    try {
      child = await this.host.runtime(childId);
    } catch (error) {
      // Never started (its start saw the call cancelled): nothing to cancel.
      if (error instanceof NotFoundError) return;
      throw error;
    }
    if (child.current.instance.status === 'running') await child.submit({ type: 'instance.cancel' });
  }

  /** Tell the parent what its child did; a parent that has ended takes nothing. */
  private async notify(childId: string, entry: Extract<CallOutboxEntry, { kind: 'toParent' }>): Promise<void> {
    let parent: InstanceRuntime;
    try {
      parent = await this.host.runtime(entry.parentId);
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new RestoreError(
          childId,
          `its parent instance ${entry.parentId} is not stored, so it cannot be told how the child ended`,
        );
      }
      throw error;
    }
    if (parent.current.instance.status !== 'running') return;
    await parent.submit({ type: 'call.ended', childId, entryId: entry.id, outcome: entry.outcome });
  }

  /**
   * Check a restored instance's links (SRD-082 FR-7): a child's parent must be stored and, unless it has moved
   * on (the child is then cancelled), wait on it; each child a call waits on must be stored, or still be in
   * the outbox to start. Throws `RestoreError` naming the missing side; the engine restores the others.
   */
  async relink(state: InstanceState): Promise<Relinked> {
    const { instance } = state;
    const relinked: Relinked = { orphaned: false, ended: [], running: [] };
    if (instance.status !== 'running') return relinked;
    if (instance.parentId !== null) {
      const parent = await this.stateOf(instance.parentId);
      if (!parent) {
        throw new RestoreError(
          instance.id,
          `it was called by instance ${instance.parentId} (at "${instance.callNodeId}"), which is not stored; a called child never runs without its parent`,
        );
      }
      relinked.orphaned = parent.instance.status !== 'running' || !parent.callerOf(instance.id);
    }
    for (const track of state.tracks.values()) {
      if (track.wait?.kind !== 'call') continue;
      const { childId } = track.wait;
      const child = await this.stateOf(childId);
      if (!child) {
        const starting = state.outbox.some((entry) => entry.kind === 'call' && entry.childId === childId);
        if (starting) continue;
        throw new RestoreError(
          instance.id,
          `its call activity "${track.nodeId}" waits on instance ${childId}, which is not stored; the child's record is gone`,
        );
      }
      if (child.instance.status === 'running') {
        relinked.running.push(childId);
        continue;
      }
      const entry = child.outbox.find(
        (candidate): candidate is Extract<CallOutboxEntry, { kind: 'toParent' }> =>
          candidate.kind === 'toParent' && candidate.id === endedEntryId(childId),
      );
      if (!entry) {
        throw new RestoreError(
          instance.id,
          `its call activity "${track.nodeId}" waits on instance ${childId}, which ${child.instance.status} without telling it how`,
        );
      }
      relinked.ended.push({ childId, entry });
    }
    return relinked;
  }

  /**
   * After a restored instance's journal: an orphan stops, outcomes that came while it was down are taken,
   * and the children it waits on run again beside it (one that cannot is a fault of its own).
   */
  async rejoin(
    runtime: InstanceRuntime,
    links: Relinked,
    fault: (instanceId: string, error: Error) => void,
  ): Promise<void> {
    if (links.orphaned) await runtime.submit({ type: 'instance.cancel' });
    for (const { childId, entry } of links.ended) {
      await runtime.submit({ type: 'call.ended', childId, entryId: entry.id, outcome: entry.outcome });
    }
    for (const childId of links.running) {
      this.host
        .runtime(childId)
        .catch((error: unknown) => fault(childId, error instanceof Error ? error : new Error(String(error))));
    }
  }

  /** An instance as it is now: live in this engine, else its stored head; undefined when not stored. */
  private async stateOf(instanceId: string): Promise<InstanceState | undefined> {
    const live = this.host.loaded(instanceId);
    if (live) return live.current;
    const stored = await this.host.repository.get(instanceId);
    return stored ? openStored(stored) : undefined;
  }
}
