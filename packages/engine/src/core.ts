import { digestInputs, type ScopeRecord, type TrackRecord, type Variables } from '@thresher/checkpoint';
import type { CoreContext, Effect, InstanceEvent } from './core-types.js';
import { InvalidStateError, NotFoundError } from './errors.js';
import { chooseFlows, FlowError } from './flows.js';
import type { InstanceState } from './instance-state.js';
import { inclusiveJoinReady, parallelJoinReady } from './joins.js';
import { invocationIdentity } from './journal.js';
import { advanceScope, initialState, scopeMachine } from './machines.js';
import { isJobNode, type Node } from './model/types.js';
import { NO_VALUE } from './step-base.js';
import { EventStep, ownedBy } from './step-events.js';

/**
 * The engine's core: apply one event to one instance and run every track it frees until each waits or
 * ends. It reads only the model, the state and `ctx.now`; it mutates the state and returns the effects
 * the runtime performs once the new state is durable. No I/O, no wall clock, no randomness.
 */
export function applyEvent(ctx: CoreContext, state: InstanceState, event: InstanceEvent): Effect[] {
  const step = new Step(ctx, state);
  step.apply(event);
  step.drain();
  return step.effects;
}

class Step extends EventStep {
  private readonly reentering = new Set<string>();

  apply(event: InstanceEvent): void {
    switch (event.type) {
      case 'instance.start':
        this.presetTimer = event.timer;
        return this.start(event.variables, event.startNode);
      case 'instance.cancel':
        return this.terminate('/', '');
      case 'job.completed':
        return this.jobCompleted(event.jobId, event.result);
      case 'job.failed':
        return this.jobFailed(event.jobId, event.error, event.retryable, event.errorCode);
      case 'timer.fired':
        return this.fireTimer(event.timerId);
      case 'message.correlated':
        return this.correlate(event);
      case 'signal.received':
        return this.receiveSignal(event);
      case 'outbox.delivered': {
        const index = this.state.outbox.findIndex((entry) => entry.id === event.entryId);
        if (index >= 0) this.state.outbox.splice(index, 1);
        return;
      }
      case 'userTask.completed':
        return this.userTaskCompleted(event.taskId, event.variables);
      case 'incident.retry':
        return this.retryIncident(event.incidentId);
    }
  }

  /** Move every runnable track until each waits or ends, then settle joins and drained scopes. */
  drain(): void {
    for (;;) {
      while (this.agenda.length > 0) {
        const track = this.state.tracks.get(this.agenda.shift()!);
        if (track?.state === 'entering') this.enter(track);
        else if (track?.state === 'leaving') this.leave(track);
      }
      if (!this.fireInclusiveJoins() && !this.closeDrainedScopes()) break;
    }
    for (const [id, track] of this.state.tracks) {
      if (track.state === 'done' || track.state === 'cancelled') this.state.tracks.delete(id);
    }
  }

  // ── events ──────────────────────────────────────────────────────────────────────────────────────────

  private start(variables: Variables, startNode: string): void {
    const { process } = this.ctx;
    Object.assign(this.state.scope('/').data, variables);
    this.announce({ id: `${this.id}:instance.started`, type: 'instance.started', processId: process.id });
    this.armEventSubProcesses('/', null);
    this.spawn('/', startNode, null);
  }

  private jobCompleted(jobId: string, result: Variables): void {
    const job = this.state.jobs.get(jobId);
    // A result for a job that is gone (cancelled, or already applied from the journal) changes nothing.
    if (!job) return;
    const track = this.state.track(job.trackId);
    this.state.jobs.delete(jobId);
    track.result = result;
    track.wait = null;
    this.announce({
      id: `${this.id}:${job.identity}:job.completed`,
      type: 'job.completed',
      jobId,
      elementId: job.nodeId,
    });
    this.transition(track, 'RESUME');
  }

  private jobFailed(jobId: string, error: string, retryable: boolean, errorCode?: string): void {
    const job = this.state.jobs.get(jobId);
    if (!job) return;
    if (errorCode !== undefined) {
      // A BPMN error is not a failure to retry: the nearest catcher takes it, else it is an incident.
      const track = this.state.track(job.trackId);
      if (this.throwError(track, errorCode, {})) return void this.state.jobs.delete(jobId);
      job.lastError = error;
      this.raiseIncident(track, 'uncaught-error', 'job', `uncaught BPMN error ${errorCode}: ${error}`, jobId);
      return;
    }
    job.failures += 1;
    job.retriesLeft = retryable ? Math.max(0, job.retriesLeft - 1) : 0;
    job.lastError = error;
    this.announce({
      id: `${this.id}:${job.identity}:job.failed:${job.failures}`,
      type: 'job.failed',
      jobId,
      elementId: job.nodeId,
      error,
      retriesLeft: job.retriesLeft,
    });
    if (job.retriesLeft > 0) {
      job.notBefore = this.ctx.now + this.ctx.backoff(job.failures);
      this.effects.push({ type: 'dispatch', jobId });
      return;
    }
    job.notBefore = null;
    this.raiseIncident(this.state.track(job.trackId), 'job-failed', 'job', `handler failed: ${error}`, jobId);
  }

  private userTaskCompleted(taskId: string, variables: Variables): void {
    const task = this.state.userTasks.get(taskId);
    if (!task) throw new NotFoundError('userTask', `${this.id}/${taskId}`);
    const track = this.state.track(task.trackId);
    this.state.userTasks.delete(taskId);
    track.result = variables;
    track.wait = null;
    this.announce({
      id: `${this.id}:userTask.completed:${taskId}`,
      type: 'userTask.completed',
      taskId,
      elementId: task.nodeId,
    });
    this.transition(track, 'RESUME');
  }

  private retryIncident(incidentId: string): void {
    const incident = this.state.incidents.get(incidentId);
    if (!incident) throw new NotFoundError('incident', `${this.id}/${incidentId}`);
    this.state.incidents.delete(incidentId);
    const track = this.state.track(incident.trackId);
    this.announce({
      id: `${this.id}:incident.resolved:${incidentId}`,
      type: 'incident.resolved',
      incidentId,
      elementId: incident.nodeId,
    });
    const job = incident.jobId === null ? undefined : this.state.jobs.get(incident.jobId);
    if (job) {
      const node = this.node(job.nodeId);
      job.retriesLeft = (isJobNode(node) ? node.retries : undefined) ?? this.ctx.defaultRetries;
      job.notBefore = null;
      track.wait = { kind: 'job', jobId: job.id };
      this.transition(track, 'RETRY_WAIT');
      this.effects.push({ type: 'dispatch', jobId: job.id });
      return;
    }
    track.wait = null;
    // The same activation tries again: it is not announced as entered a second time.
    if (incident.resume !== 'leave') this.reentering.add(track.id);
    this.transition(track, incident.resume === 'leave' ? 'RETRY_LEAVE' : 'RETRY_ENTER');
  }

  // ── entering an element ─────────────────────────────────────────────────────────────────────────────

  private enter(track: TrackRecord): void {
    const node = this.node(track.nodeId);
    if (!this.reentering.delete(track.id))
      this.announce({
        id: `${this.id}:${track.scopePath}:${node.id}:${track.attempt}:${track.id}:entered`,
        type: 'track.entered',
        trackId: track.id,
        elementId: node.id,
      });
    if (node.type !== 'subProcess' && node.io.inputs.length > 0) {
      const locals = this.mapOrIncident(track, node.io.inputs, this.state.visible(track.scopePath), 'enter');
      if (!locals) return;
      track.locals = locals;
    }
    if (this.ctx.process.boundaries?.has(node.id) && !this.armBoundaries(track)) return;
    if (this.enterEvent(track, node)) return;
    switch (node.type) {
      case 'startEvent':
      case 'task':
      case 'manualTask':
      case 'exclusiveGateway':
        return this.transition(track, 'COMPLETE');
      case 'endEvent':
        return this.end(track, node);
      case 'terminateEndEvent':
        this.end(track, node);
        return this.terminate(track.scopePath, node.id);
      case 'serviceTask':
      case 'sendTask':
        return this.createJobAt(track, node.taskType, node.retries);
      case 'scriptTask': {
        const value = this.evaluateOrIncident(track, node.expression, 'enter');
        if (value === NO_VALUE) return;
        track.result = { [node.resultVariable]: value };
        return this.transition(track, 'COMPLETE');
      }
      case 'userTask':
        return this.createUserTask(track, node);
      case 'parallelGateway':
      case 'inclusiveGateway':
        if (node.incoming.length <= 1) return this.transition(track, 'COMPLETE');
        track.wait = { kind: 'join' };
        this.transition(track, 'WAIT');
        if (node.type === 'parallelGateway') this.fireParallelJoin(track);
        return;
      case 'subProcess':
        return this.openScope(track, node);
    }
  }

  protected createJobAt(track: TrackRecord, taskType: string, retries: number | undefined): void {
    const inputDigest = digestInputs({ ...this.state.visible(track.scopePath), ...track.locals });
    const identity = invocationIdentity(this.state.instance, track, inputDigest);
    const jobId = this.state.nextId('j');
    this.state.jobs.set(jobId, {
      id: jobId,
      trackId: track.id,
      nodeId: track.nodeId,
      taskType,
      identity,
      inputDigest,
      failures: 0,
      retriesLeft: retries ?? this.ctx.defaultRetries,
      notBefore: null,
      lastError: null,
    });
    track.wait = { kind: 'job', jobId };
    this.transition(track, 'WAIT');
    this.effects.push({ type: 'dispatch', jobId });
  }

  private createUserTask(track: TrackRecord, node: Node & { type: 'userTask' }): void {
    const taskId = this.state.nextId('u');
    this.state.userTasks.set(taskId, {
      id: taskId,
      trackId: track.id,
      nodeId: node.id,
      name: node.name,
      assignee: node.assignee,
      createdAt: this.ctx.now,
    });
    track.wait = { kind: 'userTask', taskId };
    this.transition(track, 'WAIT');
    this.announce({
      id: `${this.id}:userTask.created:${taskId}`,
      type: 'userTask.created',
      taskId,
      elementId: node.id,
    });
  }

  private end(track: TrackRecord, node: Node): void {
    this.record(track, node);
    this.transition(track, 'END');
  }

  // ── leaving an element ──────────────────────────────────────────────────────────────────────────────

  private leave(track: TrackRecord): void {
    const node = this.node(track.nodeId);
    if (!this.applyOutputs(track, node)) return;
    // Its boundary events wait only while the activity runs.
    this.state.dropWaits(ownedBy(track.id));
    let flows: { id: string | null; target: string }[];
    try {
      const decided = this.decided.get(track.id);
      const link = node.type === 'intermediateThrowEvent' && node.event?.kind === 'link' ? node.event.name : null;
      flows = decided
        ? node.outgoing.map((id) => this.ctx.process.flows.get(id)!).filter((f) => f.target === decided.target)
        : link !== null
          ? [this.linkTo(node.container, link)]
          : chooseFlows(this.ctx.process, node, this.state.visible(track.scopePath));
    } catch (error) {
      if (!(error instanceof FlowError)) throw error;
      this.raiseIncident(track, error.kind, 'leave', error.message, null);
      return;
    }
    this.record(track, node);
    track.locals = null;
    track.result = null;
    track.wait = null;
    const [first, ...rest] = flows;
    if (!first) return this.transition(track, 'END');
    this.transition(track, 'MOVE');
    this.place(track, first.target, first.id);
    this.agenda.push(track.id);
    for (const flow of rest) this.spawn(track.scopePath, flow.target, flow.id);
  }

  /**
   * Apply what the element produced: with output mappings, evaluate them over the element's view and
   * propagate the targets; without, propagate the result as it is. False when an incident was raised.
   */
  private applyOutputs(track: TrackRecord, node: Node): boolean {
    const path = track.scopePath;
    if (node.io.outputs.length > 0) {
      const view = { ...this.state.visible(path), ...track.locals, ...track.result };
      const outputs = this.mapOrIncident(track, node.io.outputs, view, 'leave');
      if (!outputs) return false;
      this.state.propagate(path, outputs);
    } else if (track.result !== null && node.type !== 'subProcess') {
      this.state.propagate(path, track.result);
    }
    return true;
  }

  // ── scopes ──────────────────────────────────────────────────────────────────────────────────────────

  private openScope(host: TrackRecord, node: Node & { type: 'subProcess' }): void {
    const parent = host.scopePath;
    const data = this.mapOrIncident(host, node.io.inputs, this.state.visible(parent), 'enter');
    if (!data) return;
    // One path per activation (`/sub`, then `/sub#2`, …): step identities inside never repeat a pass's.
    const base = `${parent === '/' ? '' : parent}/${node.id}`;
    const path = host.attempt === 0 ? base : `${base}#${host.attempt + 1}`;
    const scope: ScopeRecord = {
      path,
      nodeId: node.id,
      hostTrack: host.id,
      parentPath: parent,
      state: initialState(scopeMachine),
      data,
      visits: {},
    };
    this.state.scopes.set(path, scope);
    if (!this.armEventSubProcesses(path, host)) {
      this.state.scopes.delete(path);
      return;
    }
    host.wait = { kind: 'scope', path };
    this.transition(host, 'WAIT');
    const start = node.startNodes[0];
    if (!start) throw new InvalidStateError(`sub-process ${node.id} has no none start event`);
    this.spawn(path, start, null);
  }

  /** A link throw's jump, as a flow without an id to the catch event of that name in its container. */
  private linkTo(container: string, name: string): { id: string | null; target: string } {
    for (const node of this.ctx.process.nodes.values()) {
      const catches = node.type === 'intermediateCatchEvent' && node.event.kind === 'link';
      if (catches && node.container === container && node.event.kind === 'link' && node.event.name === name) {
        return { id: null, target: node.id };
      }
    }
    throw new InvalidStateError(`no link catch event "${name}" in ${container}`);
  }

  /** Close every scope whose tracks have all ended: the root completes the instance, others resume their host. */
  private closeDrainedScopes(): boolean {
    let closed = false;
    for (const scope of [...this.state.scopes.values()].reverse()) {
      if (scope.state !== 'active' || this.state.liveTracks(scope.path).length > 0) continue;
      // A running event sub-process keeps its scope open.
      if (this.hasOpenChild(scope.path)) continue;
      closed = true;
      scope.state = advanceScope(scope.state, 'COMPLETE');
      this.dropEventSubProcessWaits(scope.path);
      if (scope.parentPath === null) {
        this.finishInstance('completed');
        continue;
      }
      this.state.scopes.delete(scope.path);
      // An event sub-process has no host: its end lets its parent scope drain.
      if (scope.hostTrack === null) continue;
      const host = this.state.track(scope.hostTrack);
      host.locals = { ...scope.data };
      host.wait = null;
      this.transition(host, 'RESUME');
    }
    return closed;
  }

  private hasOpenChild(path: string): boolean {
    for (const scope of this.state.scopes.values()) if (scope.parentPath === path) return true;
    return false;
  }

  /** A terminate end event: cancel every other track of the scope and its inner scopes. */
  private terminate(path: string, nodeId: string): void {
    this.cancelInside(path);
    if (path === '/') {
      this.dropEventSubProcessWaits('/');
      const root = this.state.scope('/');
      root.state = advanceScope(root.state, 'TERMINATE');
      this.finishInstance('terminated', nodeId);
    }
  }

  // ── joins ───────────────────────────────────────────────────────────────────────────────────────────

  private fireParallelJoin(arrived: TrackRecord): void {
    const node = this.node(arrived.nodeId);
    const merged = parallelJoinReady(this.state, node, arrived.scopePath);
    if (merged) this.merge(merged);
  }

  private fireInclusiveJoins(): boolean {
    let fired = false;
    for (const track of [...this.state.tracks.values()]) {
      if (track.state !== 'waiting' || track.wait?.kind !== 'join') continue;
      const node = this.node(track.nodeId);
      if (node.type !== 'inclusiveGateway') continue;
      const merged = inclusiveJoinReady(this.ctx.process, this.state, node, track.scopePath);
      if (merged) {
        this.merge(merged);
        fired = true;
      }
    }
    return fired;
  }

  /** The first track continues through the join; the others it absorbed end there. */
  private merge([survivor, ...absorbed]: TrackRecord[]): void {
    for (const track of absorbed) {
      track.wait = null;
      this.transition(track, 'END');
    }
    survivor!.wait = null;
    this.transition(survivor!, 'RESUME');
  }
}
