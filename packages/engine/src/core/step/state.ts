import type {
  CheckpointBody,
  ConditionRecord,
  DecisionRecord,
  FlowEntry,
  HistoryEntry,
  IncidentRecord,
  InstanceRecord,
  JobRecord,
  OutboxEntry,
  PastRecords,
  ScopeRecord,
  SubscriptionRecord,
  TimerRecord,
  TouchpointRecord,
  TrackRecord,
  UserTaskRecord,
  Variables,
  WaitOwner,
} from '@thresher/checkpoint';

/**
 * An instance's records as the loop holds them: every record whole. The checkpoint document writes some
 * shorter (a body its host derives as its path, a track that only waits on its user task as `<id>@<path>`);
 * capture and restore (`runtime/document/capture.ts`) pack and unpack them.
 */
export type InstanceRecords = Omit<CheckpointBody, 'scopes' | 'tracks' | 'userTasks'> & {
  scopes: ScopeRecord[];
  tracks: TrackRecord[];
  userTasks: UserTaskRecord[];
};

/** Whether a wait belongs to a track: its catch, its gateway's, or its activity's boundary events. */
export function ownedBy(trackId: string): (owner: WaitOwner) => boolean {
  return (owner) => owner.kind !== 'eventSubProcess' && owner.trackId === trackId;
}

/**
 * What the step under way did that the instance's log keeps (`StepLog`), not its document: the elements it
 * completed, the flows it took, the decisions it evaluated. Written into the step's log entry when the step is
 * persisted, then emptied, so an instance in memory carries its live state and not its past.
 */
export interface StepRecords {
  completed: HistoryEntry[];
  flows: FlowEntry[];
  decisions: DecisionRecord[];
}

/** The records most instances at rest have none of: their maps are made on the first write (`write`). */
interface SparseRecords {
  jobs: JobRecord;
  incidents: IncidentRecord;
  timers: TimerRecord;
  subscriptions: SubscriptionRecord;
  conditions: ConditionRecord;
}

/** What `jobs` & co. read while there is none of them: one empty map, which nothing can write through its type. */
const NONE: ReadonlyMap<string, never> = new Map<string, never>();

/**
 * The working copy of one instance's records, indexed for the loop; the maps keep insertion order so a
 * capture (`runtime/document/capture.ts#packBody`) is deterministic.
 */
export class InstanceState {
  readonly instance: InstanceRecord;
  readonly scopes = new Map<string, ScopeRecord>();
  readonly tracks = new Map<string, TrackRecord>();
  readonly userTasks = new Map<string, UserTaskRecord>();
  // An empty Map costs ~150 bytes of heap, and most instances at rest (a parked one waits on a user task)
  // have no job, incident, timer or subscription: four of them for each instance in memory.
  readonly #sparse: { [K in keyof SparseRecords]?: Map<string, SparseRecords[K]> } = {};
  readonly outbox: OutboxEntry[];
  /** What the step under way did, for its log entry. */
  readonly done: StepRecords = { completed: [], flows: [], decisions: [] };
  /**
   * The past a document of schema 13 or older carried (`CheckpointBody.past`), until the next step's log entry
   * takes it; undefined for every instance written since.
   */
  past: PastRecords | undefined;
  /** Each touchpoint's progress; null when the instance is not tracked (started before schema 7). */
  touchpoints: TouchpointRecord[] | null;

  constructor(body: InstanceRecords) {
    this.instance = body.instance;
    for (const scope of body.scopes) this.scopes.set(scope.path, scope);
    for (const track of body.tracks) this.tracks.set(track.id, track);
    for (const task of body.userTasks) this.userTasks.set(task.id, task);
    for (const job of body.jobs) this.write('jobs').set(job.id, job);
    for (const incident of body.incidents) this.write('incidents').set(incident.id, incident);
    for (const timer of body.timers) this.write('timers').set(timer.id, timer);
    for (const subscription of body.subscriptions) this.write('subscriptions').set(subscription.id, subscription);
    for (const condition of body.conditions ?? []) this.write('conditions').set(condition.id, condition);
    this.outbox = body.outbox;
    this.past = body.past;
    this.touchpoints = body.touchpoints;
  }

  get jobs(): ReadonlyMap<string, JobRecord> {
    return this.#sparse.jobs ?? NONE;
  }

  get incidents(): ReadonlyMap<string, IncidentRecord> {
    return this.#sparse.incidents ?? NONE;
  }

  get timers(): ReadonlyMap<string, TimerRecord> {
    return this.#sparse.timers ?? NONE;
  }

  get subscriptions(): ReadonlyMap<string, SubscriptionRecord> {
    return this.#sparse.subscriptions ?? NONE;
  }

  /** Conditional boundary and event sub-process start events waiting (`conditions.ts`). */
  get conditions(): ReadonlyMap<string, ConditionRecord> {
    return this.#sparse.conditions ?? NONE;
  }

  /** The map of `name` to change, made now if the instance had none of those records. */
  write<K extends keyof SparseRecords>(name: K): Map<string, SparseRecords[K]> {
    const sparse = this.#sparse as { [P in K]?: Map<string, SparseRecords[K]> };
    let map = sparse[name];
    if (map === undefined) {
      map = new Map();
      sparse[name] = map;
    }
    return map;
  }

  /** The step's log entry is durable: what it did, and the past of an older document, are the log's now. */
  logged(): void {
    this.done.completed.length = 0;
    this.done.flows.length = 0;
    this.done.decisions.length = 0;
    this.past = undefined;
  }

  /** A new local id; the counter lives in the document so ids stay stable across restores. */
  nextId(prefix: 't' | 'j' | 'u' | 'i' | 'w' | 'c'): string {
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

  /** Remember a delivered id (the last 1,000); true when it was delivered before. */
  alreadyReceived(id: string | null): boolean {
    if (id === null) return false;
    const received = this.instance.receivedIds;
    if (received.includes(id)) return true;
    received.push(id);
    if (received.length > 1000) received.splice(0, received.length - 1000);
    return false;
  }

  /** The track waiting on the called child `childId`, if one still is. */
  callerOf(childId: string): TrackRecord | undefined {
    for (const track of this.tracks.values()) {
      if (track.wait?.kind === 'call' && track.wait.childId === childId) return track;
    }
    return undefined;
  }

  /** Whether `scope` runs a compensation handler for a sweep: its host is the thrower, waiting on the sweep. */
  isSweepScope(scope: ScopeRecord | undefined): boolean {
    if (!scope || scope.hostTrack === null) return false;
    return this.tracks.get(scope.hostTrack)?.wait?.kind === 'sweep';
  }

  /**
   * The scope that takes what an element at `path` produces (its outputs, its end listeners' variables): the
   * element's own scope, but for a compensation handler, which reads a snapshot, the live scope around it.
   */
  outputScope(path: string): string {
    const scope = this.scope(path);
    return this.isSweepScope(scope) ? scope.parentPath! : path;
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
   * already holds it, else in the root scope — or, inside an ad-hoc sub-process, in the activation's scope,
   * where what its elements write stays.
   */
  propagate(path: string, variables: Variables): void {
    const chain = this.chain(path).reverse();
    const fallback = chain.find((scope) => scope.activation !== undefined) ?? chain[chain.length - 1]!;
    for (const [name, value] of Object.entries(variables)) {
      const holder = chain.find((scope) => Object.hasOwn(scope.data, name)) ?? fallback;
      holder.data[name] = value;
    }
  }

  /** Remove every timer, subscription and condition a predicate picks; returns how many went. */
  dropWaits(owned: (owner: WaitOwner) => boolean): number {
    let dropped = 0;
    for (const [id, timer] of this.timers) if (owned(timer.owner) && this.write('timers').delete(id)) dropped++;
    for (const [id, subscription] of this.subscriptions) {
      if (owned(subscription.owner) && this.write('subscriptions').delete(id)) dropped++;
    }
    for (const [id, condition] of this.conditions) {
      if (owned(condition.owner) && this.write('conditions').delete(id)) dropped++;
    }
    return dropped;
  }

  /**
   * The user task the track waits at: the one it waits on, or — waiting on an incident of its transition — the
   * one naming it; undefined when none.
   */
  taskOf(track: TrackRecord): UserTaskRecord | undefined {
    const wait = track.wait;
    if (wait?.kind === 'userTask') return this.userTasks.get(wait.taskId);
    if (wait?.kind !== 'incident') return undefined;
    for (const task of this.userTasks.values()) if (task.trackId === track.id) return task;
    return undefined;
  }

  /** Remove an incident, and the job it stopped with it. */
  dropIncident(incidentId: string): void {
    const jobId = this.incidents.get(incidentId)?.jobId;
    if (jobId) this.write('jobs').delete(jobId);
    this.write('incidents').delete(incidentId);
  }

  /** Whether a scope (of any state) lies directly inside the scope at `path`. */
  hasChildScope(path: string): boolean {
    for (const scope of this.scopes.values()) if (scope.parentPath === path) return true;
    return false;
  }

  /** The earliest due time of a timer, if any. */
  nextDue(): number | null {
    let due: number | null = null;
    for (const timer of this.timers.values()) if (due === null || timer.dueAt < due) due = timer.dueAt;
    return due;
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
