import type {
  CheckpointBody,
  IncidentRecord,
  InstanceRecord,
  JobRecord,
  ScopeRecord,
  TrackRecord,
  UserTaskRecord,
  Variables,
} from '@thresher/checkpoint';

/**
 * The working copy of one instance's records, indexed for the loop. `toBody()` gives back the
 * checkpoint body; the maps keep insertion order so a capture is deterministic.
 */
export class InstanceState {
  readonly instance: InstanceRecord;
  readonly scopes = new Map<string, ScopeRecord>();
  readonly tracks = new Map<string, TrackRecord>();
  readonly jobs = new Map<string, JobRecord>();
  readonly userTasks = new Map<string, UserTaskRecord>();
  readonly incidents = new Map<string, IncidentRecord>();
  readonly history: CheckpointBody['history'];

  constructor(body: CheckpointBody) {
    this.instance = body.instance;
    for (const scope of body.scopes) this.scopes.set(scope.path, scope);
    for (const track of body.tracks) this.tracks.set(track.id, track);
    for (const job of body.jobs) this.jobs.set(job.id, job);
    for (const task of body.userTasks) this.userTasks.set(task.id, task);
    for (const incident of body.incidents) this.incidents.set(incident.id, incident);
    this.history = body.history;
  }

  /** The body as plain data; records are shared, so capture it only between events. */
  toBody(): CheckpointBody {
    return {
      instance: this.instance,
      scopes: [...this.scopes.values()],
      tracks: [...this.tracks.values()],
      jobs: [...this.jobs.values()],
      userTasks: [...this.userTasks.values()],
      incidents: [...this.incidents.values()],
      history: this.history,
    };
  }

  /** A new local id; the counter lives in the document so ids stay stable across restores. */
  nextId(prefix: 't' | 'j' | 'u' | 'i'): string {
    this.instance.nextId += 1;
    return `${prefix}${this.instance.nextId}`;
  }

  scope(path: string): ScopeRecord {
    const scope = this.scopes.get(path);
    if (!scope) throw new Error(`scope ${path} of instance ${this.instance.id} is not open`);
    return scope;
  }

  track(id: string): TrackRecord {
    const track = this.tracks.get(id);
    if (!track) throw new Error(`track ${id} of instance ${this.instance.id} does not exist`);
    return track;
  }

  /** The scope chain from the root down to `path`. */
  chain(path: string): ScopeRecord[] {
    const chain: ScopeRecord[] = [];
    for (let scope: ScopeRecord | undefined = this.scope(path); scope; ) {
      chain.unshift(scope);
      scope = scope.parentPath === null ? undefined : this.scopes.get(scope.parentPath);
    }
    return chain;
  }

  /** Every variable visible from a scope: inner scopes shadow outer ones. */
  visible(path: string): Variables {
    const out: Variables = {};
    for (const scope of this.chain(path)) Object.assign(out, scope.data);
    return out;
  }

  /**
   * Set variables as Zeebe propagates them: each lands in the nearest scope (from `path` outwards) that
   * already holds it, else in the root scope.
   */
  propagate(path: string, variables: Variables): void {
    const chain = this.chain(path).reverse();
    const root = chain[chain.length - 1]!;
    for (const [name, value] of Object.entries(variables)) {
      const holder = chain.find((scope) => Object.hasOwn(scope.data, name)) ?? root;
      holder.data[name] = value;
    }
  }

  /** Tracks that are still alive (not done or cancelled) in a scope. */
  liveTracks(path: string): TrackRecord[] {
    const out: TrackRecord[] = [];
    for (const track of this.tracks.values()) {
      if (track.scopePath === path && track.state !== 'done' && track.state !== 'cancelled') out.push(track);
    }
    return out;
  }
}
