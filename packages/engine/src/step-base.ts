import type { IncidentRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import type { Announcement, CoreContext, Effect } from './core-types.js';
import { ExpressionError, InvalidStateError } from './errors.js';
import { evaluate } from './feel.js';
import type { InstanceState } from './instance-state.js';
import { advanceScope, advanceTrack, initialState, type TrackEvent, trackMachine } from './machines.js';
import { MappingError, runMappings } from './mappings.js';
import type { Expression, Mapping, Node } from './model/types.js';

/** What `evaluateOrIncident` returns when the expression failed and an incident was raised instead. */
export const NO_VALUE: unique symbol = Symbol('no value');

/**
 * What every step of the core shares: the records it touches, the agenda of tracks to move, the effects
 * it collects, and the moves that keep a track's machine, its incidents and its history in step.
 */
export abstract class StepBase {
  readonly effects: Effect[] = [];
  protected readonly agenda: string[] = [];
  protected readonly id: string;

  constructor(
    protected readonly ctx: CoreContext,
    protected readonly state: InstanceState,
  ) {
    this.id = state.instance.id;
  }

  protected spawn(path: string, nodeId: string, viaFlow: string | null): TrackRecord {
    const track: TrackRecord = {
      id: this.state.nextId('t'),
      scopePath: path,
      nodeId,
      viaFlow,
      state: initialState(trackMachine),
      attempt: 0,
      wait: null,
      locals: null,
      result: null,
    };
    this.place(track, nodeId, viaFlow);
    this.state.tracks.set(track.id, track);
    this.agenda.push(track.id);
    return track;
  }

  protected place(track: TrackRecord, nodeId: string, viaFlow: string | null): void {
    track.nodeId = nodeId;
    track.viaFlow = viaFlow;
    const { visits } = this.state.scope(track.scopePath);
    track.attempt = visits[nodeId] ?? 0;
    visits[nodeId] = track.attempt + 1;
  }

  protected transition(track: TrackRecord, event: TrackEvent): void {
    track.state = advanceTrack(track.state, event);
    if (track.state === 'entering' || track.state === 'leaving') this.agenda.push(track.id);
  }

  protected record(track: TrackRecord, node: Node): void {
    this.state.history.push({ node: node.id, scope: track.scopePath, track: track.id });
    this.announce({
      id: `${this.id}:${track.scopePath}:${node.id}:${track.attempt}:${track.id}:left`,
      type: 'track.left',
      trackId: track.id,
      elementId: node.id,
    });
  }

  protected raiseIncident(
    track: TrackRecord,
    kind: IncidentRecord['kind'],
    resume: IncidentRecord['resume'],
    message: string,
    jobId: string | null,
  ): void {
    const incidentId = this.state.nextId('i');
    this.state.incidents.set(incidentId, {
      id: incidentId,
      trackId: track.id,
      nodeId: track.nodeId,
      jobId,
      kind,
      resume,
      message,
      raisedAt: this.ctx.now,
    });
    track.wait = { kind: 'incident', incidentId };
    this.transition(track, 'FAIL');
    this.announce({
      id: `${this.id}:incident.raised:${incidentId}`,
      type: 'incident.raised',
      incidentId,
      elementId: track.nodeId,
      message,
    });
  }

  protected mapOrIncident(
    track: TrackRecord,
    mappings: readonly Mapping[],
    view: Variables,
    resume: 'enter' | 'leave',
  ): Variables | undefined {
    try {
      return runMappings(mappings, view);
    } catch (error) {
      if (!(error instanceof MappingError)) throw error;
      this.raiseIncident(track, 'mapping-failed', resume, error.message, null);
      return undefined;
    }
  }

  protected evaluateOrIncident(track: TrackRecord, expression: Expression, resume: 'enter' | 'leave'): unknown {
    try {
      return evaluate(expression, { ...this.state.visible(track.scopePath), ...track.locals });
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      this.raiseIncident(track, 'expression-failed', resume, error.message, null);
      return NO_VALUE;
    }
  }

  protected node(id: string): Node {
    const node = this.ctx.process.nodes.get(id);
    if (!node) throw new InvalidStateError(`element "${id}" is not in process ${this.ctx.process.id}`);
    return node;
  }

  protected announce(event: Announcement): void {
    this.effects.push({ type: 'announce', event });
  }

  protected cancelInside(path: string): void {
    for (const scope of [...this.state.scopes.values()]) {
      if (scope.parentPath === path) {
        this.cancelInside(scope.path);
        this.state.dropWaits((owner) => owner.kind === 'eventSubProcess' && owner.scopePath === scope.path);
        scope.state = advanceScope(scope.state, 'TERMINATE');
        this.state.scopes.delete(scope.path);
      }
    }
    for (const track of this.state.liveTracks(path)) this.cancel(track);
  }

  /** Cancel a track where it is: its job, user task, inner scope, incident, timers and subscriptions go. */
  protected cancel(track: TrackRecord): void {
    const wait = track.wait;
    if (wait?.kind === 'job') this.state.jobs.delete(wait.jobId);
    if (wait?.kind === 'userTask') this.state.userTasks.delete(wait.taskId);
    if (wait?.kind === 'scope') {
      this.cancelInside(wait.path);
      const scope = this.state.scopes.get(wait.path);
      if (scope) scope.state = advanceScope(scope.state, 'TERMINATE');
      this.state.scopes.delete(wait.path);
    }
    this.state.dropWaits((owner) => owner.kind !== 'eventSubProcess' && owner.trackId === track.id);
    if (wait?.kind === 'incident') {
      const incident = this.state.incidents.get(wait.incidentId);
      if (incident?.jobId) this.state.jobs.delete(incident.jobId);
      this.state.incidents.delete(wait.incidentId);
    }
    track.wait = null;
    this.transition(track, 'CANCEL');
  }

  protected finishInstance(status: 'completed' | 'terminated', nodeId?: string): void {
    const instance = this.state.instance;
    instance.status = status;
    instance.endedAt = this.ctx.now;
    if (status === 'completed') this.announce({ id: `${this.id}:instance.completed`, type: 'instance.completed' });
    else this.announce({ id: `${this.id}:instance.terminated`, type: 'instance.terminated', elementId: nodeId ?? '' });
  }
}
