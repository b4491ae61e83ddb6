import {
  type BufferedMessage,
  canonicalBytes,
  encodeJournalEntry,
  fromCanonicalBytes,
  type JournalEntry,
  type OutboxEntry,
  openCheckpoint,
  type Repository,
  resultReceipt,
  sealCheckpoint,
  type Variables,
} from '@thresher/checkpoint';
import type { Clock, EngineEvent, Handlers, Job, SettledOptions, SettledState } from './api-types.js';
import { applyEvent } from './core.js';
import type { Announcement, CoreContext, Effect, InstanceEvent } from './core-types.js';
import { BpmnError, NotFoundError } from './errors.js';
import { InstanceState } from './instance-state.js';
import type { ProcessDef } from './model/types.js';
import { incidentViews, userTaskView } from './views.js';

/** The longest delay Node's setTimeout takes as given. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What a runtime needs from its engine. */
export interface RuntimeHost {
  repository: Repository;
  clock: Clock;
  handlers: Handlers;
  defaultRetries: number;
  backoff: (failure: number) => number;
  emit(event: EngineEvent): void;
  /** A store or engine fault that stopped this instance's loop. */
  fault(instanceId: string, error: Error): void;
  /** The instance ended and its end is durable: the engine may let go of the loop. */
  ended(instanceId: string): void;
  /** A signal this instance threw, now durable: deliver it to every instance waiting for it. */
  broadcast(name: string, variables: Variables, signalId: string): Promise<unknown>;
  /** A timer start event fired: create the instance waiting for its cycle's next occurrence. */
  startNext(digest: string, processId: string, entry: Extract<OutboxEntry, { kind: 'start' }>): Promise<unknown>;
}

/**
 * The loop of one instance: the single writer of its state. Every event is applied, made durable, and
 * only then are its effects performed (handlers called, events published), so a crash may repeat an
 * effect but never lose one.
 */
export class InstanceRuntime {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly running = new Set<string>();
  private readonly timers = new Map<string, unknown>();
  private settledWaiters: Array<() => void> = [];
  private bpmnTimer: unknown;
  /** Effects still reaching the outside (a thrown signal on its way): the instance is not settled yet. */
  private inFlightEffects = 0;
  private broken: Error | null = null;
  private stopped = false;
  /** The message subscriptions of the latest durable step: one not in it is new and looks in the buffer. */
  private armed: Set<string>;

  constructor(
    private readonly host: RuntimeHost,
    private readonly process: ProcessDef,
    private state: InstanceState,
    /** The seq of the latest durable checkpoint; null before the first. */
    private seq: number | null,
    private lastBytes: Uint8Array | null,
  ) {
    this.armed = new Set(messageSubscriptionIds(state));
  }

  get id(): string {
    return this.state.instance.id;
  }

  get current(): InstanceState {
    return this.state;
  }

  get latestSeq(): number {
    return this.seq ?? -1;
  }

  /** Apply an event, persist, perform its effects. Rejects (state unchanged) when the event is refused. */
  submit(event: InstanceEvent): Promise<void> {
    return this.enqueue(async () => {
      const effects = this.applyOrRollback([event]);
      await this.persist();
      this.perform(effects);
    });
  }

  /**
   * Continue a restored instance: apply the journal recovered with its checkpoint (those handlers are not
   * called again), then dispatch every job still in flight. One step of the loop, so no handler outcome
   * can land between the two and have its job dispatched twice.
   */
  resume(journal: JournalEntry[]): Promise<void> {
    return this.enqueue(async () => {
      const pending = journal.filter((entry) => this.state.jobs.has(entry.jobId));
      if (pending.length > 0) {
        const effects = this.applyOrRollback(
          pending.map((entry) => ({ type: 'job.completed', jobId: entry.jobId, result: entry.result })),
        );
        await this.persist();
        this.perform(effects);
      }
      for (const track of this.state.tracks.values()) {
        if (track.wait?.kind === 'job') this.dispatch(track.wait.jobId);
      }
      // A timer that fell due while nothing ran fires now, once; what the outbox holds is delivered again.
      this.scheduleTimers();
      for (const entry of [...this.state.outbox]) this.deliver(entry.id);
      // Messages buffered while nothing ran, and one this instance took but had not delivered, are taken now.
      await this.takeBufferedNow(messageSubscriptionIds(this.state));
    });
  }

  /**
   * Take, for every open message subscription, the buffered messages that match it (see
   * {@link takeBufferedNow}); resolves once they are applied and durable. `correlateMessage` calls it after
   * buffering a message, for the instances that subscribed while it looked.
   */
  takeBuffered(): Promise<void> {
    return this.enqueue(() => this.takeBufferedNow(messageSubscriptionIds(this.state)));
  }

  /** Resolves when the instance has ended, or waits only on the outside world (user tasks, incidents). */
  settled(options: SettledOptions = {}): Promise<SettledState> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (this.broken) {
          reject(this.broken);
          return true;
        }
        const result = this.settledState(options.timers ?? 'park');
        if (result) resolve(result);
        return result !== undefined;
      };
      const waiter = (): void => {
        if (!check()) this.settledWaiters.push(waiter);
      };
      waiter();
    });
  }

  /** Stop dispatching; results arriving later are dropped (their jobs stay in flight in the document). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const handle of this.timers.values()) this.host.clock.clearTimeout(handle);
    this.timers.clear();
    this.unscheduleTimers();
    await this.tail;
  }

  // ── the loop ────────────────────────────────────────────────────────────────────────────────────────

  private enqueue(work: () => Promise<void>): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    this.queued++;
    const run = this.tail.then(async () => {
      if (this.broken) throw this.broken;
      await work();
    });
    const settle = (): void => {
      this.queued--;
      this.notifySettled();
    };
    this.tail = run.then(settle, settle);
    return run;
  }

  /**
   * A write the store refused or failed leaves memory ahead of what is durable: the loop stops for good
   * and the instance is restored from the store by the next engine (or `recover()`).
   */
  private async durably(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.broken = error instanceof Error ? error : new Error(String(error));
      this.host.fault(this.id, this.broken);
      throw error;
    }
  }

  private applyOrRollback(events: InstanceEvent[]): Effect[] {
    const effects: Effect[] = [];
    try {
      for (const event of events) effects.push(...applyEvent(this.context(), this.state, event));
      return effects;
    } catch (error) {
      // The core may have changed records before refusing; go back to what is durable.
      if (this.lastBytes) this.state = new InstanceState(openCheckpoint(this.lastBytes, { instanceId: this.id }).body);
      throw error;
    }
  }

  private context(): CoreContext {
    return {
      process: this.process,
      now: this.host.clock.now(),
      defaultRetries: this.host.defaultRetries,
      backoff: this.host.backoff,
    };
  }

  private async persist(): Promise<void> {
    const instance = this.state.instance;
    const seq = this.seq === null ? 0 : this.seq + 1;
    const { document, bytes } = sealCheckpoint({
      instanceId: instance.id,
      seq,
      parentSeq: this.seq,
      definitionDigest: instance.definition.digest,
      capturedAt: this.host.clock.now(),
      body: this.state.toBody(),
    });
    await this.durably(() =>
      this.host.repository.put({
        instanceId: instance.id,
        seq,
        parentSeq: this.seq,
        schema: document.schema,
        definitionDigest: document.definitionDigest,
        digest: document.digest,
        bytes,
        meta: {
          status: instance.status,
          processId: instance.processId,
          definitionId: instance.definition.id,
          businessKey: instance.businessKey,
          parentId: instance.parentId,
          callNodeId: instance.callNodeId,
          dueAt: this.state.nextDue(),
          subscriptions: subscriptionIndex(this.state),
        },
      }),
    );
    this.seq = seq;
    this.lastBytes = bytes;
    if (instance.status !== 'running') this.host.ended(instance.id);
    this.announce({ id: `${instance.id}:checkpoint.saved:${seq}`, type: 'checkpoint.saved', seq });
    this.scheduleTimers();
    // A message subscription this step made is durable now: its next step looks for a buffered message.
    const current = messageSubscriptionIds(this.state);
    const made = current.filter((id) => !this.armed.has(id));
    this.armed = new Set(current);
    if (made.length > 0 && instance.status === 'running') {
      this.enqueue(() => this.takeBufferedNow(made)).catch(() => {}); // faults surface through host.fault
    }
  }

  // ── buffered messages ───────────────────────────────────────────────────────────────────────────────

  /**
   * One loop step: for each of these message subscriptions still open, take the buffered messages of its
   * name and key (oldest first, while it stays open: a non-interrupting one takes every one) and deliver
   * each. The order makes a buffered message neither lost nor delivered twice:
   *
   * 1. `takeMessage` hands the message to this instance alone and holds it for it (no other taker sees it);
   * 2. the message is applied under its id and persisted: it is now in this instance's `receivedIds`;
   * 3. `deleteMessage` removes it from the buffer.
   *
   * Stopped after 1, the next restore takes the held message back (a taker gets what it holds first) and
   * delivers it; stopped after 2, it takes it back, finds the id already received, and only deletes it — or,
   * when the delivery moved it past every subscription of that name and key (or ended it), leaves it held,
   * invisible to every other taker, until a full `recover()` deletes it once expired.
   */
  private async takeBufferedNow(subscriptionIds: string[]): Promise<void> {
    for (const subscriptionId of subscriptionIds) {
      for (;;) {
        const subscription = this.state.subscriptions.get(subscriptionId);
        if (this.stopped || subscription?.kind !== 'message' || this.state.instance.status !== 'running') break;
        const { name, correlationKey } = subscription;
        let message: BufferedMessage | undefined;
        await this.durably(async () => {
          message = await this.host.repository.takeMessage(name, correlationKey, this.host.clock.now(), this.id);
        });
        if (message === undefined) break;
        const { id } = message;
        if (!this.state.instance.receivedIds.includes(id)) {
          const variables = fromCanonicalBytes(message.variables) as Variables;
          const effects = this.applyOrRollback([
            { type: 'message.correlated', name, correlationKey, variables, messageId: id },
          ]);
          await this.persist();
          this.perform(effects);
        }
        await this.durably(async () => {
          await this.host.repository.deleteMessage(id);
        });
      }
    }
  }

  private perform(effects: Effect[]): void {
    for (const effect of effects) {
      if (effect.type === 'announce') this.announce(effect.event);
      else if (effect.type === 'dispatch') this.dispatch(effect.jobId);
      else this.deliver(effect.entryId);
    }
  }

  private announce(event: Announcement): void {
    this.host.emit({ ...event, instanceId: this.id, at: this.host.clock.now() } as EngineEvent);
  }

  // ── jobs ────────────────────────────────────────────────────────────────────────────────────────────

  private dispatch(jobId: string): void {
    const job = this.state.jobs.get(jobId);
    if (!job || this.stopped || this.running.has(jobId) || this.timers.has(jobId)) return;
    const delay = job.notBefore === null ? 0 : job.notBefore - this.host.clock.now();
    if (delay > 0) {
      const handle = this.host.clock.setTimeout(() => {
        this.timers.delete(jobId);
        this.dispatch(jobId);
      }, delay);
      this.timers.set(jobId, handle);
      return;
    }
    const node = this.process.nodes.get(job.nodeId);
    const track = this.state.track(job.trackId);
    const attempt = job.failures + 1;
    const view: Job = {
      id: job.id,
      instanceId: this.id,
      elementId: job.nodeId,
      elementName: node?.name ?? null,
      taskType: job.taskType,
      variables: { ...this.state.visible(track.scopePath), ...track.locals },
      idempotencyKey: job.identity,
      attempt,
      businessKey: this.state.instance.businessKey,
    };
    this.running.add(jobId);
    this.announce({
      id: `${this.id}:${job.identity}:job.dispatched:${attempt}`,
      type: 'job.dispatched',
      jobId,
      elementId: job.nodeId,
      taskType: job.taskType,
      attempt,
    });
    const handler = this.host.handlers[job.taskType];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new NotFoundError('handler', job.taskType);
        return handler(view);
      })
      .then(
        (result) => this.jobSettled(jobId, checkResult(job.taskType, result)),
        (error: unknown) =>
          this.jobSettled(
            jobId,
            BpmnError.is(error)
              ? { error: error.message, retryable: false, errorCode: error.errorCode }
              : { error: describe(error), retryable: true },
          ),
      );
  }

  private jobSettled(jobId: string, outcome: Outcome): void {
    // A stopped loop, or a job cancelled meanwhile (terminate), takes no result.
    if (this.stopped || !this.state.jobs.has(jobId)) {
      this.running.delete(jobId);
      return this.notifySettled();
    }
    // The job counts as running until the loop has applied its outcome: nothing can dispatch it twice.
    const work =
      'result' in outcome
        ? this.completeJob(jobId, outcome.result)
        : this.enqueue(async () => {
            this.running.delete(jobId);
            const effects = this.applyOrRollback([
              {
                type: 'job.failed',
                jobId,
                error: outcome.error,
                retryable: outcome.retryable,
                ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
              },
            ]);
            await this.persist();
            this.perform(effects);
          });
    work.catch(() => {}); // faults are reported through host.fault and settled()
  }

  /** Journal the result against the current checkpoint, then apply it: a kill in between loses nothing. */
  private completeJob(jobId: string, result: Variables): Promise<void> {
    return this.enqueue(async () => {
      this.running.delete(jobId);
      const job = this.state.jobs.get(jobId);
      if (!job || this.seq === null) return;
      const entry: JournalEntry = { jobId, result, receipt: resultReceipt(job.identity, result) };
      const seq = this.seq;
      await this.durably(() =>
        this.host.repository.putWrites(this.id, seq, [{ taskId: jobId, index: 0, value: encodeJournalEntry(entry) }]),
      );
      const effects = this.applyOrRollback([{ type: 'job.completed', jobId, result }]);
      await this.persist();
      this.perform(effects);
    });
  }

  /** Deliver an outbox entry (at least once: its id lets receivers take it once), then drop it. */
  private deliver(entryId: string): void {
    const entry = this.state.outbox.find((candidate) => candidate.id === entryId);
    if (!entry || this.stopped) return;
    this.inFlightEffects++;
    const done = (): void => {
      this.inFlightEffects--;
      this.notifySettled();
    };
    const delivery =
      entry.kind === 'signal'
        ? this.host.broadcast(entry.name, entry.variables, entry.id)
        : this.host.startNext(this.state.instance.definition.digest, this.process.id, entry);
    delivery.then(() => this.submit({ type: 'outbox.delivered', entryId })).then(done, done);
  }

  // ── BPMN timers ─────────────────────────────────────────────────────────────────────────────────────

  /** One clock timer at the earliest due BPMN timer; rescheduled after every durable step. */
  private scheduleTimers(): void {
    this.unscheduleTimers();
    const due = this.state.nextDue();
    if (due === null || this.stopped || this.state.instance.status !== 'running') return;
    this.bpmnTimer = this.host.clock.setTimeout(
      () => {
        this.bpmnTimer = undefined;
        const now = this.host.clock.now();
        const ready = [...this.state.timers.values()].filter((timer) => timer.dueAt <= now);
        ready.sort((a, b) => a.dueAt - b.dueAt);
        if (ready.length === 0) return this.scheduleTimers();
        for (const timer of ready) this.submit({ type: 'timer.fired', timerId: timer.id }).catch(() => {});
      },
      // Node's timers hold at most 2^31-1 ms (~24.8 days); a later timer is re-checked when that runs out.
      Math.min(MAX_TIMEOUT_MS, Math.max(0, due - this.host.clock.now())),
    );
  }

  private unscheduleTimers(): void {
    if (this.bpmnTimer !== undefined) this.host.clock.clearTimeout(this.bpmnTimer);
    this.bpmnTimer = undefined;
  }

  // ── settling ────────────────────────────────────────────────────────────────────────────────────────

  private settledState(timers: 'park' | 'wait'): SettledState | undefined {
    const { instance } = this.state;
    // A step under way may have ended the instance without yet publishing what it did.
    if (this.queued > 0) return undefined;
    if (instance.status !== 'running') return { instanceId: instance.id, status: instance.status };
    if (this.running.size > 0 || this.timers.size > 0 || this.inFlightEffects > 0) return undefined;
    if (timers === 'wait' && this.state.timers.size > 0) return undefined;
    return {
      instanceId: instance.id,
      status: 'waiting',
      userTasks: [...this.state.userTasks.values()].map((task) => userTaskView(this.state, task)),
      incidents: incidentViews(this.state),
      timers: [...this.state.timers.values()]
        .sort((a, b) => a.dueAt - b.dueAt)
        .map((timer) => ({ elementId: timer.nodeId, dueAt: timer.dueAt })),
      subscriptions: [...this.state.subscriptions.values()].map((s) => ({
        elementId: s.nodeId,
        kind: s.kind,
        name: s.name,
        correlationKey: s.correlationKey,
      })),
    };
  }

  private notifySettled(): void {
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** How a handler call ended: its variables, or why it failed and whether a retry may help. */
type Outcome = { result: Variables } | { error: string; retryable: boolean; errorCode?: string };

/** The ids of an instance's open message subscriptions, in the order the state keeps them. */
function messageSubscriptionIds(state: InstanceState): string[] {
  return [...state.subscriptions.values()].filter((s) => s.kind === 'message').map((s) => s.id);
}

/** What the repository indexes of an instance's subscriptions: `message:NAME` with its key, `signal:NAME`. */
function subscriptionIndex(state: InstanceState): { name: string; key: string | null }[] {
  return [...state.subscriptions.values()].map((s) => ({ name: `${s.kind}:${s.name}`, key: s.correlationKey }));
}

function checkResult(taskType: string, result: unknown): Outcome {
  if (result === undefined || result === null) return { result: {} };
  if (typeof result !== 'object' || Array.isArray(result)) {
    return {
      error: `the handler for "${taskType}" returned ${Array.isArray(result) ? 'an array' : typeof result}; return an object of variables`,
      retryable: true,
    };
  }
  try {
    canonicalBytes(result, '$result');
  } catch (error) {
    return { error: describe(error), retryable: true };
  }
  return { result: result as Variables };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
