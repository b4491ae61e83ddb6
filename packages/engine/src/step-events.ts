import type { SubscriptionRecord, TimerRecord, TrackRecord, Variables, WaitOwner } from '@thresher/checkpoint';
import type { InstanceEvent } from './core-types.js';
import { ExpressionError, InvalidStateError } from './errors.js';
import { evaluate } from './feel.js';
import { initialState, scopeMachine } from './machines.js';
import type { BoundaryEventNode, EventDefinition, Node, StartEventNode, SubProcessNode } from './model/types.js';
import { NO_VALUE, StepBase } from './step-base.js';
import { isCronCycle, nextFiring, scheduleTimer, type TimerSchedule, TimerSpecError } from './timer-spec.js';

/** Whether a wait belongs to a track: its catch, its gateway's, or its activity's boundary events. */
export function ownedBy(trackId: string): (owner: WaitOwner) => boolean {
  return (owner) => owner.kind !== 'eventSubProcess' && owner.trackId === trackId;
}

/**
 * The event half of a step: arming timers and subscriptions for catch events, receive tasks, boundary
 * events and event-based gateways, firing them, and throwing BPMN errors to the nearest catcher.
 */
export abstract class EventStep extends StepBase {
  /** A timer start event's occurrence scheduled by the one before it, for the instance this step starts. */
  protected presetTimer: TimerSchedule | undefined;

  /** Tracks that leave an event-based gateway in this step: the catch event each won, and its payload. */
  protected readonly decided = new Map<string, { target: string; variables: Variables }>();

  /**
   * Create the timer or subscription an event waits on, evaluated in `view`. False when its expression
   * failed: an incident is raised on `blame` (re-entered on retry).
   */
  protected arm(
    owner: WaitOwner,
    node: Node,
    event: EventDefinition,
    view: Variables,
    blame: TrackRecord | null,
  ): boolean {
    try {
      switch (event.kind) {
        case 'timer': {
          const schedule = scheduleTimer(event.timer, evaluate(event.timer.expression, view), this.ctx.now);
          const timer: TimerRecord = { id: this.state.nextId('w'), nodeId: node.id, owner, ...schedule };
          this.state.timers.set(timer.id, timer);
          this.announce({
            id: `${this.id}:timer.armed:${timer.id}`,
            type: 'timer.armed',
            timerId: timer.id,
            elementId: node.id,
            dueAt: timer.dueAt,
          });
          return true;
        }
        case 'message':
        case 'signal': {
          const name = evaluate(event.name, view);
          if (typeof name !== 'string' || name === '')
            throw new TimerSpecError(`the ${event.kind} name is ${JSON.stringify(name)}`);
          let correlationKey: string | null = null;
          if (event.kind === 'message' && event.correlationKey) {
            const key = evaluate(event.correlationKey, view);
            if (typeof key !== 'string' && typeof key !== 'number') {
              throw new TimerSpecError(`the correlation key is ${JSON.stringify(key)}, not a string or number`);
            }
            correlationKey = String(key);
          }
          const subscription: SubscriptionRecord = {
            id: this.state.nextId('w'),
            kind: event.kind,
            nodeId: node.id,
            owner,
            name,
            correlationKey,
          };
          this.state.subscriptions.set(subscription.id, subscription);
          return true;
        }
        default:
          return true;
      }
    } catch (error) {
      if (!(error instanceof ExpressionError) && !(error instanceof TimerSpecError)) throw error;
      if (blame === null) throw new InvalidStateError(`${node.id}: ${error.message}`);
      this.raiseIncident(blame, 'expression-failed', 'enter', `${node.id}: ${error.message}`, null);
      return false;
    }
  }

  /** Arm the timer, message and signal boundary events of the activity `track` is entering. */
  protected armBoundaries(track: TrackRecord): boolean {
    const view = { ...this.state.visible(track.scopePath), ...track.locals };
    for (const boundary of this.boundariesOf(track.nodeId)) {
      const owner: WaitOwner = { kind: 'boundary', trackId: track.id, nodeId: boundary.id };
      if (!this.arm(owner, boundary, boundary.event, view, track)) {
        this.state.dropWaits(ownedBy(track.id));
        return false;
      }
    }
    return true;
  }

  protected boundariesOf(activityId: string): BoundaryEventNode[] {
    const ids = this.ctx.process.boundaries?.get(activityId) ?? [];
    return ids.map((id) => this.node(id) as BoundaryEventNode);
  }

  /** A timer fell due: wake its owner, and re-arm what is left of a cycle for a non-interrupting owner. */
  protected fireTimer(timerId: string): void {
    const timer = this.state.timers.get(timerId);
    if (!timer || timer.dueAt > this.ctx.now) return;
    this.state.timers.delete(timerId);
    this.announce({
      id: `${this.id}:timer.fired:${timer.id}:${timer.dueAt}`,
      type: 'timer.fired',
      timerId,
      elementId: timer.nodeId,
    });
    const node = this.node(timer.nodeId);
    const next = timer.cycle ? this.nextOccurrence(timer, node) : null;
    const keepsWaiting = this.wake(timer.owner, {});
    if (!next) return;
    if (node.type === 'startEvent' && node.container === this.ctx.process.id) {
      // A timer start event's cycle goes on in a new instance, waiting for the next occurrence; this one
      // runs the process. Recorded in the outbox so a crash cannot lose the rest of the cycle.
      const occurrence = timerStartOccurrence(this.id) + 1;
      const id = `${this.id}/next-start/${occurrence}`;
      this.state.outbox.push({
        id,
        kind: 'start',
        startNode: node.id,
        dueAt: next.dueAt,
        cycle: next.cycle,
        occurrence,
      });
      this.effects.push({ type: 'deliver', entryId: id });
      return;
    }
    if (keepsWaiting) this.state.timers.set(timer.id, { ...timer, ...next });
  }

  /**
   * The next occurrence of a timer's cycle, or null when it is done. A cron cycle is stored without its
   * text (`intervalMs` 0): the element's timer expression is evaluated again, in the variables its timer
   * was armed in (the host activity's, or the event sub-process's scope).
   */
  private nextOccurrence(timer: TimerRecord, node: Node): TimerSchedule | null {
    const event = 'event' in node ? node.event : undefined;
    if (event?.kind !== 'timer' || !timer.cycle)
      throw new InvalidStateError(`timer ${timer.id}: ${node.id} has no timer cycle`);
    try {
      let value: unknown;
      if (isCronCycle(timer.cycle)) {
        const owner = timer.owner;
        let view: Variables;
        if (owner.kind === 'eventSubProcess') view = this.state.visible(owner.scopePath);
        else {
          const host = this.state.tracks.get(owner.trackId);
          if (!host) throw new InvalidStateError(`timer ${timer.id}: track ${owner.trackId} is gone`);
          view = { ...this.state.visible(host.scopePath), ...host.locals };
        }
        value = evaluate(event.timer.expression, view);
      }
      return nextFiring(event.timer, value, timer.dueAt, timer.cycle, this.ctx.now);
    } catch (error) {
      // Only a FEEL cron expression re-evaluated to something unschedulable gets here (a literal that was
      // armed once always has a next occurrence): the cycle ends with this firing.
      if (!(error instanceof ExpressionError) && !(error instanceof TimerSpecError)) throw error;
      return null;
    }
  }

  /**
   * A process-level timer start event: the instance waits at it for its timer — armed from its expression
   * for a cycle's first occurrence, or `preset` by the occurrence before it.
   */
  protected armTimerStart(track: TrackRecord, node: StartEventNode, preset: TimerSchedule | undefined): boolean {
    if (node.event?.kind !== 'timer') return false;
    const owner: WaitOwner = { kind: 'track', trackId: track.id };
    if (preset) {
      const id = this.state.nextId('w');
      this.state.timers.set(id, { id, nodeId: node.id, owner, ...preset });
    } else if (!this.arm(owner, node, node.event, this.state.visible(track.scopePath), track)) {
      return true;
    }
    track.wait = { kind: 'event' };
    this.transition(track, 'WAIT');
    return true;
  }

  /** A subscription's message or signal arrived. */
  protected deliver(subscription: SubscriptionRecord, variables: Variables): void {
    this.wake(subscription.owner, variables);
  }

  /**
   * Wake a wait's owner with the event's payload. Returns whether the owner keeps waiting afterwards (a
   * non-interrupting boundary): its timer cycle goes on, its subscription stays.
   */
  private wake(owner: WaitOwner, variables: Variables): boolean {
    switch (owner.kind) {
      case 'track':
      case 'gateway': {
        const track = this.state.tracks.get(owner.trackId);
        if (track?.wait?.kind !== 'event') return false;
        this.state.dropWaits(ownedBy(track.id));
        if (owner.kind === 'gateway') this.decided.set(track.id, { target: owner.target, variables });
        else track.result = variables;
        track.wait = null;
        this.transition(track, 'RESUME');
        return false;
      }
      case 'boundary': {
        const host = this.state.tracks.get(owner.trackId);
        const boundary = this.node(owner.nodeId) as BoundaryEventNode;
        if (!host) return false;
        if (boundary.interrupting) this.cancel(host);
        this.spawnWith(host.scopePath, boundary.id, variables);
        return !boundary.interrupting;
      }
      case 'eventSubProcess': {
        const scope = this.state.scopes.get(owner.scopePath);
        if (scope?.state !== 'active') return false;
        const start = this.node(owner.nodeId) as StartEventNode;
        this.startEventSubProcess(owner.scopePath, start, variables);
        return start.interrupting === false;
      }
    }
  }

  /**
   * Arm the timer, message and signal starts of the event sub-processes of the scope at `path`. With a
   * `blame` track an expression that fails raises an incident on it (false); without, it refuses the event.
   */
  protected armEventSubProcesses(path: string, blame: TrackRecord | null): boolean {
    const scope = this.state.scope(path);
    const view = this.state.visible(path);
    for (const start of this.eventSubProcessStarts(scope.nodeId)) {
      const event = start.event;
      if (event?.kind !== 'timer' && event?.kind !== 'message' && event?.kind !== 'signal') continue;
      if (!this.arm({ kind: 'eventSubProcess', scopePath: path, nodeId: start.id }, start, event, view, blame)) {
        this.dropEventSubProcessWaits(path);
        return false;
      }
    }
    return true;
  }

  protected dropEventSubProcessWaits(path: string): void {
    this.state.dropWaits((owner) => owner.kind === 'eventSubProcess' && owner.scopePath === path);
  }

  private eventSubProcessStarts(containerId: string): StartEventNode[] {
    const ids = this.ctx.process.eventSubProcesses?.get(containerId) ?? [];
    return ids.map((id) => this.node((this.node(id) as SubProcessNode).startNodes[0]!) as StartEventNode);
  }

  /**
   * Start an event sub-process in the scope at `scopePath`, in a scope of its own. An interrupting one first
   * cancels everything else in that scope (and its other event sub-processes' waits).
   */
  protected startEventSubProcess(scopePath: string, start: StartEventNode, variables: Variables): void {
    if (start.interrupting !== false) {
      this.cancelInside(scopePath);
      this.dropEventSubProcessWaits(scopePath);
    }
    const parent = this.state.scope(scopePath);
    const espId = start.container;
    const pass = parent.visits[espId] ?? 0;
    parent.visits[espId] = pass + 1;
    const base = `${scopePath === '/' ? '' : scopePath}/${espId}`;
    const path = pass === 0 ? base : `${base}#${pass + 1}`;
    this.state.scopes.set(path, {
      path,
      nodeId: espId,
      hostTrack: null,
      parentPath: scopePath,
      state: initialState(scopeMachine),
      data: {},
      visits: {},
    });
    this.armEventSubProcesses(path, null);
    this.spawnWith(path, start.id, variables);
  }

  /** The event sub-process start of a scope that catches an error or escalation `code`: exact first. */
  private eventSubProcessCatcher(path: string, kind: 'error' | 'escalation', code: string): StartEventNode | undefined {
    const scope = this.state.scopes.get(path);
    if (!scope) return undefined;
    const starts = this.eventSubProcessStarts(scope.nodeId).filter((s) => s.event?.kind === kind);
    const codeOf = (s: StartEventNode) => (s.event?.kind === kind ? s.event.code : undefined);
    return starts.find((s) => codeOf(s) === code) ?? starts.find((s) => codeOf(s) === null);
  }

  /** A new track at `nodeId` carrying an event's payload as its result. */
  protected spawnWith(path: string, nodeId: string, variables: Variables): void {
    this.spawn(path, nodeId, null).result = variables;
  }

  /**
   * Throw a BPMN error from `from` (a track at a task whose handler threw it, or at an error end event):
   * the nearest error boundary with that code (or none) on the activity or an enclosing sub-process catches
   * it, interrupting what it is attached to. False when nothing catches it.
   */
  protected throwError(from: TrackRecord, code: string, variables: Variables): boolean {
    return this.propagate(from, 'error', code, variables);
  }

  /**
   * Throw an escalation from `from`: caught like an error, but a non-interrupting catcher lets the thrower
   * go on, and nothing happens when no one catches it.
   */
  protected throwEscalation(from: TrackRecord, code: string, variables: Variables): boolean {
    return this.propagate(from, 'escalation', code, variables);
  }

  /**
   * Find the nearest catcher of an error or escalation: a boundary on the activity, then an event
   * sub-process of its scope, then the same for the enclosing sub-process, up to the process.
   */
  private propagate(from: TrackRecord, kind: 'error' | 'escalation', code: string, variables: Variables): boolean {
    for (let track: TrackRecord | undefined = from; track; ) {
      const boundary = this.boundaryCatcher(track.nodeId, kind, code);
      if (boundary) {
        this.announceCaught(from, boundary.id, code);
        if (boundary.interrupting) this.cancel(track);
        this.spawnWith(track.scopePath, boundary.id, variables);
        return true;
      }
      const start = this.eventSubProcessCatcher(track.scopePath, kind, code);
      if (start) {
        this.announceCaught(from, start.id, code);
        this.startEventSubProcess(track.scopePath, start, variables);
        return true;
      }
      const host: string | null | undefined = this.state.scopes.get(track.scopePath)?.hostTrack;
      track = host ? this.state.tracks.get(host) : undefined;
    }
    return false;
  }

  private announceCaught(from: TrackRecord, catcherId: string, code: string): void {
    this.announce({
      id: `${this.id}:error.caught:${from.id}:${from.attempt}:${catcherId}`,
      type: 'error.caught',
      elementId: catcherId,
      errorCode: code,
    });
  }

  /** The boundary of an activity that catches an error or escalation `code`: an exact code first, then a catch-all. */
  private boundaryCatcher(
    activityId: string,
    kind: 'error' | 'escalation',
    code: string,
  ): BoundaryEventNode | undefined {
    const catchers = this.boundariesOf(activityId).filter((b) => b.event.kind === kind);
    const codeOf = (b: BoundaryEventNode) => (b.event.kind === kind ? b.event.code : undefined);
    return catchers.find((b) => codeOf(b) === code) ?? catchers.find((b) => codeOf(b) === null);
  }

  // ── elements ───────────────────────────────────────────────────────────────────────────────────────

  /** Enter the event elements (catch and throw events, receive tasks, gateways on events). False: not one. */
  protected enterEvent(track: TrackRecord, node: Node): boolean {
    const view = (): Variables => ({ ...this.state.visible(track.scopePath), ...track.locals });
    switch (node.type) {
      case 'startEvent':
        return node.container === this.ctx.process.id && this.armTimerStart(track, node, this.presetTimer);
      case 'boundaryEvent':
        this.transition(track, 'COMPLETE');
        return true;
      case 'intermediateCatchEvent':
      case 'receiveTask': {
        const decided = this.decided.get(track.id);
        if (decided?.target === node.id) {
          // The event-based gateway's winner: its event has already happened.
          this.decided.delete(track.id);
          track.result = decided.variables;
          this.transition(track, 'COMPLETE');
          return true;
        }
        if (node.event.kind === 'link') {
          this.transition(track, 'COMPLETE');
          return true;
        }
        if (!this.arm({ kind: 'track', trackId: track.id }, node, node.event, view(), track)) return true;
        track.wait = { kind: 'event' };
        this.transition(track, 'WAIT');
        return true;
      }
      case 'eventBasedGateway': {
        for (const flowId of node.outgoing) {
          const target = this.node(this.ctx.process.flows.get(flowId)!.target);
          const event = target.type === 'intermediateCatchEvent' || target.type === 'receiveTask' ? target.event : null;
          if (!event) continue;
          const owner: WaitOwner = { kind: 'gateway', trackId: track.id, target: target.id };
          if (!this.arm(owner, target, event, view(), track)) {
            this.state.dropWaits(ownedBy(track.id));
            return true;
          }
        }
        track.wait = { kind: 'event' };
        this.transition(track, 'WAIT');
        return true;
      }
      case 'intermediateThrowEvent':
      case 'endEvent':
        return this.enterThrow(track, node, view);
      default:
        return false;
    }
  }

  private enterThrow(
    track: TrackRecord,
    node: Node & { type: 'intermediateThrowEvent' | 'endEvent' },
    view: () => Variables,
  ): boolean {
    const event = node.event;
    if (!event) return false;
    const ends = node.type === 'endEvent';
    switch (event.kind) {
      case 'signal': {
        const name = this.evaluateOrIncident(track, event.name, 'enter');
        if (name === NO_VALUE) return true;
        // Recorded in the outbox with this step, so a crash before delivery cannot lose it.
        const entryId = `${this.id}/${track.scopePath}/${node.id}/${track.attempt}/${track.id}`;
        this.state.outbox.push({ id: entryId, kind: 'signal', name: String(name), variables: {} });
        this.effects.push({ type: 'deliver', entryId });
        this.transition(track, 'COMPLETE');
        return true;
      }
      case 'message': {
        if (node.taskType === undefined) return false;
        this.createJobAt(track, node.taskType, node.retries);
        return true;
      }
      case 'escalation': {
        const code = event.code ?? '';
        if (ends) this.state.history.push({ node: node.id, scope: track.scopePath, track: track.id });
        this.throwEscalation(track, code, view());
        // An interrupting catcher may have cancelled the thrower; otherwise it goes on (or ends).
        if (track.state !== 'cancelled') this.transition(track, ends ? 'END' : 'COMPLETE');
        return true;
      }
      case 'link':
        this.transition(track, 'COMPLETE');
        return true;
      case 'error': {
        if (!ends) return false;
        const code = event.code ?? '';
        this.state.history.push({ node: node.id, scope: track.scopePath, track: track.id });
        if (this.throwError(track, code, view())) {
          if (track.state !== 'cancelled') this.transition(track, 'END');
          return true;
        }
        this.state.history.pop();
        this.raiseIncident(
          track,
          'uncaught-error',
          'enter',
          `uncaught BPMN error ${code} thrown by "${node.id}"`,
          null,
        );
        return true;
      }
      default:
        return false;
    }
  }

  /** Create a job for a job-like event (a message throw or end event, as in Zeebe). */
  protected abstract createJobAt(track: TrackRecord, taskType: string, retries: number | undefined): void;

  // ── deliveries ─────────────────────────────────────────────────────────────────────────────────────

  /** A message for this instance: the first subscription with its name and key takes it, once per message id. */
  protected correlate(event: Extract<InstanceEvent, { type: 'message.correlated' }>): void {
    if (this.alreadyReceived(event.messageId)) return;
    const subscription = [...this.state.subscriptions.values()].find(
      (s) => s.kind === 'message' && s.name === event.name && s.correlationKey === event.correlationKey,
    );
    if (!subscription) {
      throw new InvalidStateError(
        `instance ${this.id} has no subscription for message "${event.name}" with key ${JSON.stringify(event.correlationKey)}`,
      );
    }
    this.announce({
      id: `${this.id}:message.correlated:${subscription.id}:${event.messageId ?? this.state.instance.nextId}`,
      type: 'message.correlated',
      elementId: subscription.nodeId,
      name: event.name,
      correlationKey: event.correlationKey,
    });
    this.deliver(subscription, event.variables);
  }

  /** A signal: every subscription of this instance with its name takes it, once per signal id. */
  protected receiveSignal(event: Extract<InstanceEvent, { type: 'signal.received' }>): void {
    if (this.alreadyReceived(event.signalId)) return;
    const matching = [...this.state.subscriptions.values()].filter((s) => s.kind === 'signal' && s.name === event.name);
    for (const subscription of matching) {
      if (!this.state.subscriptions.has(subscription.id)) continue; // an earlier delivery cancelled it
      this.announce({
        id: `${this.id}:signal.received:${subscription.id}:${event.signalId ?? this.state.instance.nextId}`,
        type: 'signal.received',
        elementId: subscription.nodeId,
        name: event.name,
      });
      this.deliver(subscription, event.variables);
    }
  }

  /** Remember a delivered id (the last 1,000); true when it was delivered before. */
  private alreadyReceived(id: string | null): boolean {
    if (id === null) return false;
    const received = this.state.instance.receivedIds;
    if (received.includes(id)) return true;
    received.push(id);
    if (received.length > 1000) received.splice(0, received.length - 1000);
    return false;
  }
}

/** Which occurrence of a timer start event's cycle an instance is: the last segment of its id, else 0. */
export function timerStartOccurrence(instanceId: string): number {
  const match = /:(\d+)$/.exec(instanceId);
  return match ? Number(match[1]) : 0;
}
