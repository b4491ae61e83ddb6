import {
  type BufferedMessage,
  type CallOutboxEntry,
  encodeJournalEntry,
  type Fence,
  fromCanonicalBytes,
  type InstanceStatus,
  type JournalEntry,
  type Lease,
  type OutboxEntry,
  type PutCheckpoint,
  type PutClaim,
  type Repository,
  resultReceipt,
  type Variables,
} from '@thresher/checkpoint';
import type { Clock } from '../common/clock.js';
import { InstanceHeldError } from '../common/errors.js';
import type { EngineEvent } from '../common/events.js';
import { applyEvents } from '../core/apply.js';
import type { CoreContext } from '../core/context.js';
import { type Announcement, type Effect, NOTHING_OWED, type Obligations } from '../core/effects.js';
import { eventId, jobEventId } from '../core/event-ids.js';
import type { InstanceEvent } from '../core/instance-event.js';
import type { InstanceState } from '../core/state.js';
import type { ProcessDef } from '../model/types.js';
import { capture, openState } from './capture.js';
import { isStaleDeployments } from './definitions.js';
import { signalInbox } from './handover.js';
import { callHandler, jobView, type Outcome } from './job-calls.js';
import { settledState } from './settle.js';
import { TimerWake } from './timer-wake.js';
import type { Handlers, SettledOptions, SettledState } from './types.js';

/** How long a delivery to an instance another engine holds waits before it is tried again. */
const HELD_RETRY_MS = 1_000;

/** What a runtime needs from its engine. */
export interface RuntimeHost {
  repository: Repository;
  clock: Clock;
  handlers: Handlers;
  defaultRetries: number;
  backoff: (failure: number) => number;
  emit(event: EngineEvent): void;
  /** Whether anyone listens for events of `type`: an event nobody hears is not built. */
  listening(type: EngineEvent['type']): boolean;
  /** A store or engine fault that stopped this instance's loop. */
  fault(instanceId: string, error: Error): void;
  /** The lease a write to this instance is made under (renewed first when due); undefined when unclaimed. */
  fence(instanceId: string): Promise<Fence | undefined>;
  /** What a new instance's first put claims its lease with: stored and held in one write. */
  newClaim(): PutClaim;
  /**
   * The instance's first checkpoint is stored, and `lease` is what its put claimed: hold it before any of
   * its effects leave. Throws `InstanceHeldError` when another engine holds it (it then runs the instance).
   */
  claimed(instanceId: string, lease: Lease | undefined): Promise<void>;
  /** The instance ended, as `status`, and its end is durable at `seq` (`released`: its lease went with that write). */
  ended(instanceId: string, released: boolean, status: Exclude<InstanceStatus, 'running'>, seq: number): void;
  /** A signal this instance threw, now durable: deliver it to every instance waiting for it. */
  broadcast(name: string, variables: Variables, signalId: string): Promise<unknown>;
  /** A timer start event fired: create the instance waiting for its cycle's next occurrence. */
  startNext(digest: string, processId: string, entry: Extract<OutboxEntry, { kind: 'start' }>): Promise<unknown>;
  /** A call activity's entry, now durable: start or cancel the child, or tell the parent how the child ended. */
  call(from: InstanceRuntime, entry: CallOutboxEntry): Promise<unknown>;
  /**
   * Whether the loop may retire now that the instance is parked with nothing under way
   * (`EngineOptions.dehydrate`); `retired` is then called with it, and it forwards every later call to `revive`.
   */
  mayRetire(runtime: InstanceRuntime): boolean;
  /** The loop retired: the earliest due time of its BPMN timers, if it has any. */
  retired(runtime: InstanceRuntime, earliestDue: number | undefined): void;
  /** The instance's live loop, restored from the store: where a retired loop forwards its calls. */
  revive(instanceId: string): Promise<InstanceRuntime>;
}

/**
 * The loop of one instance: the single writer of its state. Every event is applied by the core, made
 * durable, and only then are the effects the core returned performed (handlers called, events published,
 * timers set), so a crash may repeat an effect but never lose one.
 */
export class InstanceRuntime {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  // The collections below are made on first use: most loops in memory are parked instances that never
  // use them, and an empty Map or Set takes ~150–200 bytes of heap.
  /** Jobs whose handler is running, or whose outcome the loop has not applied yet. */
  private running: Set<string> | undefined;
  /** Jobs waiting out a retry backoff, by clock handle. */
  private backoffs: Map<string, unknown> | undefined;
  private settledWaiters: Array<() => void> = [];
  /** Wakes the instance at its BPMN timers (`wake()` makes it). */
  private timerWake: TimerWake | undefined;
  /** Effects still reaching the outside (a thrown signal on its way): the instance is not settled yet. */
  private inFlightEffects = 0;
  private broken: Error | null = null;
  private stopped = false;
  /** Parked and let go of (dehydrated): calls go to the loop `host.revive` restores. */
  private retired = false;

  constructor(
    private readonly host: RuntimeHost,
    private readonly process: ProcessDef,
    private state: InstanceState,
    /** The seq of the latest durable checkpoint; null before the first. */
    private seq: number | null,
    private lastBytes: Uint8Array | null,
    /** How many deployments a new instance's deployment was chosen among: its first put lets the store check. */
    private readonly deploymentsSeen?: number,
  ) {}

  private wake(): TimerWake {
    this.timerWake ??= new TimerWake(
      this.host.clock,
      () => this.state.timers.values(),
      (timerId) => this.submit({ type: 'timer.fired', timerId }),
    );
    return this.timerWake;
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
    if (this.retired) return this.host.revive(this.id).then((live) => live.submit(event));
    return this.enqueue(async () => {
      // Decided in turn, not when submitted: two cancels can be under way at once (a parent's, and a restored
      // orphan's own), and the second finds the instance ended. Ended is as cancelled as it gets: nothing to write.
      if (event.type === 'instance.cancel' && this.state.instance.status !== 'running') return;
      this.perform(await this.step([event]));
    });
  }

  /**
   * Continue a restored instance: apply the journal recovered with its checkpoint (those handlers are not
   * called again), then perform everything the restored state owes — dispatch the jobs in flight, wake at
   * its timers, deliver its outbox, take buffered messages for its subscriptions. One step of the loop, so
   * no handler outcome can land between the two and have its job dispatched twice. Resolves once the
   * buffered messages it took are applied.
   */
  async resume(journal: JournalEntry[]): Promise<void> {
    let takes: Promise<void>[] = [];
    await this.enqueue(async () => {
      const events: InstanceEvent[] = journal
        .filter((entry) => this.state.jobs.has(entry.jobId))
        .map((entry) => ({ type: 'job.completed', jobId: entry.jobId, result: entry.result }));
      takes = this.perform(await this.step(events, NOTHING_OWED));
    });
    await Promise.all(takes);
  }

  /**
   * Take, for every open message subscription, the buffered messages that match it; resolves once they are
   * applied and durable. `correlateMessage` calls it after buffering a message, for the instances that
   * subscribed while it looked.
   */
  takeBuffered(): Promise<void> {
    if (this.retired) return this.host.revive(this.id).then((live) => live.takeBuffered());
    return this.enqueue(() => this.takeBufferedNow([...this.state.subscriptions.keys()]));
  }

  /**
   * Resolves when the instance has ended, or waits only on the outside world (user tasks, incidents,
   * messages) or on time (BPMN timers, retry backoffs), as `options` says.
   */
  settled(options: SettledOptions = {}): Promise<SettledState> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (this.broken) {
          reject(this.broken);
          return true;
        }
        const activity = {
          stepping: this.queued > 0,
          working: (this.running?.size ?? 0) > 0 || this.inFlightEffects > 0,
          delivering: this.inFlightEffects > 0,
          backingOff: this.backoffs?.keys() ?? [],
          now: this.host.clock.now(),
        };
        const result = settledState(this.state, activity, options);
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
    this.halt();
    await this.tail;
  }

  /**
   * Another engine took the instance over: stop at once, without waiting for the current step (its write
   * will be refused), and perform nothing more. Waiters of `settled()` get `error`.
   */
  abandon(error: Error): void {
    this.broken ??= error;
    this.halt();
    this.notifySettled();
  }

  private halt(): void {
    this.stopped = true;
    for (const handle of this.backoffs?.values() ?? []) this.host.clock.clearTimeout(handle);
    this.backoffs?.clear();
    this.timerWake?.cancel();
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
  private async durably<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      this.broken = error instanceof Error ? error : new Error(String(error));
      // Not a fault: nothing was stored, and `start` chooses the deployment again.
      if (!isStaleDeployments(error)) this.host.fault(this.id, this.broken);
      throw error;
    }
  }

  /**
   * Apply events and make the result durable; returns the effects to perform. Nothing is written when
   * there were no events (a restore with an empty journal). A refused event leaves the state as it was.
   */
  private async step(events: InstanceEvent[], owed?: Obligations): Promise<Effect[]> {
    let effects: Effect[];
    try {
      effects = applyEvents(this.context(), this.state, events, owed);
    } catch (error) {
      // The core may have changed records before refusing; go back to what is durable.
      if (this.lastBytes) this.state = openState(this.lastBytes, { instanceId: this.id });
      throw error;
    }
    if (events.length > 0) await this.persist();
    return effects;
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
    const seq = this.seq === null ? 0 : this.seq + 1;
    const captured = capture(this.state, seq, this.seq, this.host.clock.now());
    const checkpoint =
      this.seq === null && this.deploymentsSeen !== undefined
        ? { ...captured, deploymentsSeen: this.deploymentsSeen }
        : captured;
    // A new instance is claimed by its first put; one that ends with nothing left to deliver (a called
    // child's end still on its way to the parent) lets go by the put that ends it.
    const claiming = this.seq === null && this.state.instance.status === 'running';
    const ending = this.state.instance.status !== 'running' && this.state.outbox.length === 0;
    let released = false;
    await this.durably(async () => {
      const fence = await this.host.fence(this.id);
      released = ending && fence !== undefined;
      const put: PutCheckpoint = fence
        ? { ...checkpoint, fence, ...(released ? { release: true } : {}) }
        : claiming
          ? { ...checkpoint, claim: this.host.newClaim() }
          : checkpoint;
      const lease = await this.host.repository.put(put);
      if (claiming) await this.host.claimed(this.id, lease);
    });
    this.seq = seq;
    this.lastBytes = checkpoint.bytes;
    const { status } = this.state.instance;
    if (ending && status !== 'running') this.host.ended(this.id, released, status, seq);
    // Built only for a listener: a persist point is the loop's hottest path.
    if (this.host.listening('checkpoint.saved')) {
      this.announce({ id: eventId(this.id, 'checkpoint.saved', seq), type: 'checkpoint.saved', seq });
    }
  }

  /** Perform effects in order; returns the buffered-message takes they queued. */
  private perform(effects: Effect[]): Promise<void>[] {
    const takes: Promise<void>[] = [];
    for (const effect of effects) {
      switch (effect.type) {
        case 'announce':
          this.announce(effect.event);
          break;
        case 'dispatch':
          this.dispatch(effect.jobId);
          break;
        case 'deliver':
          this.deliver(effect.entryId);
          break;
        case 'timer.schedule':
          if (!this.stopped) this.wake().at(effect.dueAt);
          break;
        case 'timer.cancel':
          this.timerWake?.cancel();
          break;
        case 'message.take': {
          // Faults surface through host.fault and settled().
          const take = this.enqueue(() => this.takeBufferedNow(effect.subscriptionIds)).catch(() => {});
          takes.push(take);
          break;
        }
      }
    }
    return takes;
  }

  private announce(event: Announcement): void {
    if (!this.host.listening(event.type)) return;
    // A touchpoint's cause was made durable by the checkpoint just written: its seq is the cause's sequence.
    const stamped =
      event.type === 'touchpoint.updated' && event.cause !== null ? { ...event, causeSequence: this.seq } : event;
    this.host.emit({ ...stamped, instanceId: this.id, at: this.host.clock.now() } as EngineEvent);
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
        if (this.stopped || subscription === undefined || this.state.instance.status !== 'running') break;
        const { kind, name, correlationKey } = subscription;
        // A signal is in the buffer only when another engine handed it to this instance while this one held it.
        const [bufferName, key] = kind === 'signal' ? [signalInbox(name), this.id] : [name, correlationKey];
        const message: BufferedMessage | undefined = await this.durably(() =>
          this.host.repository.takeMessage(bufferName, key, this.host.clock.now(), this.id),
        );
        if (message === undefined) break;
        const { id } = message;
        if (!this.state.instance.receivedIds.includes(id)) {
          const variables = fromCanonicalBytes(message.variables) as Variables;
          const event: InstanceEvent =
            kind === 'signal'
              ? { type: 'signal.received', name, variables, signalId: id }
              : { type: 'message.correlated', name, correlationKey, variables, messageId: id };
          this.perform(await this.step([event]));
        }
        await this.durably(() => this.host.repository.deleteMessage(id));
      }
    }
  }

  // ── jobs ────────────────────────────────────────────────────────────────────────────────────────────

  private dispatch(jobId: string): void {
    const job = this.state.jobs.get(jobId);
    if (!job || this.stopped || this.running?.has(jobId) || this.backoffs?.has(jobId)) return;
    const delay = job.notBefore === null ? 0 : job.notBefore - this.host.clock.now();
    if (delay > 0) {
      const handle = this.host.clock.setTimeout(() => {
        this.backoffs?.delete(jobId);
        this.dispatch(jobId);
      }, delay);
      this.backoffs ??= new Map();
      this.backoffs.set(jobId, handle);
      return;
    }
    const view = jobView(this.state, this.process, job);
    this.running ??= new Set();
    this.running.add(jobId);
    if (this.host.listening('job.dispatched')) {
      this.announce({
        id: jobEventId(this.id, job.identity, 'job.dispatched', view.attempt),
        type: 'job.dispatched',
        jobId,
        elementId: job.nodeId,
        taskType: job.taskType,
        attempt: view.attempt,
      });
    }
    // The handler runs after this step's effects have all been started, never inside them. It is looked
    // up then: one registered later with engine.handle() runs on the next dispatch.
    Promise.resolve()
      .then(() => callHandler(this.host.handlers, view))
      .then((outcome) => this.jobSettled(jobId, outcome));
  }

  private jobSettled(jobId: string, outcome: Outcome): void {
    // A stopped loop, or a job cancelled meanwhile (terminate), takes no result.
    if (this.stopped || !this.state.jobs.has(jobId)) {
      this.running?.delete(jobId);
      return this.notifySettled();
    }
    // The job counts as running until the loop has applied its outcome: nothing can dispatch it twice.
    const work =
      'result' in outcome
        ? this.completeJob(jobId, outcome.result)
        : this.enqueue(async () => {
            this.running?.delete(jobId);
            const { error, retryable, errorCode } = outcome;
            this.perform(
              await this.step([
                { type: 'job.failed', jobId, error, retryable, ...(errorCode === undefined ? {} : { errorCode }) },
              ]),
            );
          });
    work.catch(() => {}); // faults are reported through host.fault and settled()
  }

  /**
   * Apply a job's result. With nothing else waiting for the loop, the checkpoint that applies it is the
   * next write, at once: it alone makes the result durable (a kill before it runs the handler again, as a
   * kill before the journal entry did). Behind other work, the result is journaled first, as always.
   */
  private completeJob(jobId: string, result: Variables): Promise<void> {
    const busy = this.queued > 0;
    return this.enqueue(async () => {
      this.running?.delete(jobId);
      const job = this.state.jobs.get(jobId);
      if (!job || this.seq === null) return;
      if (!busy && this.queued === 1) {
        this.perform(await this.step([{ type: 'job.completed', jobId, result }]));
        return;
      }
      const entry: JournalEntry = { jobId, result, receipt: resultReceipt(job.identity, result) };
      const seq = this.seq;
      const write = { taskId: jobId, index: 0, value: encodeJournalEntry(entry) };
      await this.durably(async () =>
        this.host.repository.putWrites(this.id, seq, [write], await this.host.fence(this.id)),
      );
      this.perform(await this.step([{ type: 'job.completed', jobId, result }]));
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
    const attempt = (): void => {
      if (this.stopped) return done();
      const delivery =
        entry.kind === 'signal'
          ? this.host.broadcast(entry.name, entry.variables, entry.id)
          : entry.kind === 'start'
            ? this.host.startNext(this.state.instance.definition.digest, this.process.id, entry)
            : this.host.call(this, entry);
      delivery.then(
        () => this.submit({ type: 'outbox.delivered', entryId }).then(done, done),
        (error: unknown) => {
          // The other side of a call runs in another engine for now: deliver again once it may have let go.
          if (error instanceof InstanceHeldError && error.instanceId !== this.id && !this.broken) {
            this.host.clock.setTimeout(attempt, HELD_RETRY_MS);
            return;
          }
          // Left in the outbox, the entry is delivered again on the next restore; the fault says why it was not now.
          if (!this.broken) this.host.fault(this.id, error instanceof Error ? error : new Error(String(error)));
          done();
        },
      );
    };
    attempt();
  }

  private notifySettled(): void {
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const waiter of waiters) waiter();
    this.retireIfParked();
  }

  /** Running, and waiting only on the outside world or a BPMN timer: nothing queued, running or on its way out. */
  get parked(): boolean {
    if (this.state.instance.status !== 'running' || this.queued > 0 || (this.running?.size ?? 0) > 0) return false;
    return (this.backoffs?.size ?? 0) === 0 && this.inFlightEffects === 0 && this.state.outbox.length === 0;
  }

  /**
   * Dehydration: an instance that waits only on the outside world or on a BPMN timer (nothing queued, no
   * handler running, no backoff, nothing on its way out) leaves memory. Its state is durable as it stands;
   * its next event restores it.
   */
  retireIfParked(): void {
    if (this.retired || this.stopped || this.broken || !this.parked) return;
    if (!this.host.mayRetire(this)) return;
    this.retired = true;
    this.halt();
    let earliest: number | undefined;
    for (const timer of this.state.timers.values())
      if (earliest === undefined || timer.dueAt < earliest) earliest = timer.dueAt;
    this.host.retired(this, earliest);
  }
}
