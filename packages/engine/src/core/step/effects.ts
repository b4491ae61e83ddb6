import type { InstanceStatus, JobRecord } from '@thresher/checkpoint';
import type { EngineEvent } from '../../common/events.js';
import type { InstanceState } from './state.js';

/** An engine event before the runtime stamps its instance and time. */
export type Announcement = EngineEvent extends infer E
  ? E extends EngineEvent
    ? Omit<E, 'instanceId' | 'at'>
    : never
  : never;

/**
 * Everything that leaves an instance. The runtime performs effects only from this list, and only once the
 * step that produced it is durable; a restore produces the same list from the restored state through
 * the same code ({@link effectsBetween}), so what an instance must do is decided in one place.
 */
export type Effect =
  /** Publish an engine event. */
  | { type: 'announce'; event: Announcement }
  /** Call the handler of an in-flight job (after its `notBefore`, when it has one). */
  | { type: 'dispatch'; jobId: string }
  /** Wake the instance at its earliest due BPMN timer. */
  | { type: 'timer.schedule'; dueAt: number }
  /** No BPMN timer is armed any more. */
  | { type: 'timer.cancel' }
  /** Take buffered messages for these new message subscriptions. */
  | { type: 'message.take'; subscriptionIds: string[] }
  /** Deliver an outbox entry (a thrown signal, a timer start's next occurrence, a call's message). */
  | { type: 'deliver'; entryId: string }
  /**
   * The instance is done here: it ended and owes no delivery any more. The runtime lets go of it (its lease
   * goes with the write that made this durable, or after it).
   */
  | { type: 'ended'; status: Exclude<InstanceStatus, 'running'> }
  /** The instance yielded a run half-way (`InstanceRecord.drain`): take it up once other work had its turn. */
  | { type: 'continue' };

/**
 * What a state obliges the runtime to keep doing: the jobs to run, the earliest timer to wake at, the
 * message subscriptions to feed from the buffer, the outbox entries to deliver. Effects are the
 * difference between the obligations before a step and after it.
 */
export interface Obligations {
  /** In-flight jobs (a track, or its user task's transition, waits on them), by `jobId#failures`: a failure makes a new dispatch. */
  jobs: Map<string, string>;
  dueAt: number | null;
  messageSubscriptions: Set<string>;
  outbox: Set<string>;
  /** How it ended, once it has and has nothing left to deliver (nothing more is owed); null before. */
  ended: Exclude<InstanceStatus, 'running'> | null;
  /** A yielded run to take up, by how many moves it has made (each slice of a run is owed anew); null without. */
  yielded: number | null;
}

/** What a restored instance is owed against: nothing, so everything its state holds is performed. */
export const NOTHING_OWED: Obligations = Object.freeze({
  jobs: new Map(),
  dueAt: null,
  messageSubscriptions: new Set(),
  outbox: new Set(),
  ended: null,
  yielded: null,
}) as Obligations;

/** What tells one dispatch of a job from another: its id and how often it failed (a failure makes a new one). */
export function dispatchKey(job: Pick<JobRecord, 'id' | 'failures'>): string {
  return `${job.id}#${job.failures}`;
}

export function obligationsOf(state: InstanceState): Obligations {
  const { status } = state.instance;
  const running = status === 'running';
  const jobs = new Map<string, string>();
  for (const track of state.tracks.values()) {
    const wait = track.wait;
    // A user task's track waits on the task while one of its task listeners' jobs runs.
    const jobId =
      wait?.kind === 'job'
        ? wait.jobId
        : wait?.kind === 'userTask'
          ? state.userTasks.get(wait.taskId)?.transition?.jobId
          : undefined;
    const job = jobId === undefined ? undefined : state.jobs.get(jobId);
    if (job) jobs.set(dispatchKey(job), job.id);
  }
  const messageSubscriptions = new Set<string>();
  if (running) for (const s of state.subscriptions.values()) if (s.kind === 'message') messageSubscriptions.add(s.id);
  return {
    jobs,
    dueAt: running ? state.nextDue() : null,
    messageSubscriptions,
    // Delivered even after the instance ended: a signal end event's signal still goes out.
    outbox: new Set(state.outbox.map((entry) => entry.id)),
    ended: status === 'running' || state.outbox.length > 0 ? null : status,
    yielded: running ? (state.instance.drain?.moves ?? null) : null,
  };
}

/**
 * The effects that take an instance from what it owed `before` to what it owes `after`: its end, the timer to
 * (re)schedule, buffered messages to take for new subscriptions, new jobs to dispatch, new outbox entries
 * to deliver. `announcements` go between the first three and the last two, in the order they were made.
 */
export function effectsBetween(before: Obligations, after: Obligations, announcements: Effect[] = []): Effect[] {
  const effects: Effect[] = [];
  if (after.ended !== null && before.ended === null) effects.push({ type: 'ended', status: after.ended });
  if (after.dueAt !== before.dueAt) {
    effects.push(after.dueAt === null ? { type: 'timer.cancel' } : { type: 'timer.schedule', dueAt: after.dueAt });
  }
  const taken = [...after.messageSubscriptions].filter((id) => !before.messageSubscriptions.has(id));
  if (taken.length > 0) effects.push({ type: 'message.take', subscriptionIds: taken });
  effects.push(...announcements);
  for (const [key, jobId] of after.jobs) if (!before.jobs.has(key)) effects.push({ type: 'dispatch', jobId });
  for (const id of after.outbox) if (!before.outbox.has(id)) effects.push({ type: 'deliver', entryId: id });
  if (after.yielded !== null && after.yielded !== before.yielded) effects.push({ type: 'continue' });
  return effects;
}
