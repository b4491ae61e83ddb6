import {
  type BufferedMessage,
  fromCanonicalBytes,
  type InstanceStatus,
  type JournalEntry,
  type OutboxEntry,
  type StepEvent,
  type Variables,
} from '@thresher/checkpoint';
import { InstanceHeldError, InvalidStateError } from '../../common/errors.js';
import type { EngineEvent } from '../../common/events.js';
import { listenerOf } from '../../core/activities.js';
import { applyEvents } from '../../core/apply.js';
import type { CoreContext } from '../../core/step/context.js';
import {
  type Announcement,
  dispatchKey,
  type Effect,
  NOTHING_OWED,
  type Obligations,
  obligationsOf,
} from '../../core/step/effects.js';
import { eventId, jobEventId } from '../../core/step/event-ids.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/types.js';
import { processPlan } from '../../touchpoints/plan.js';
import type { SettledOptions, SettledState } from '../base/types.js';
import { callsDecisions } from '../deployments/decisions.js';
import { isStaleDeployments } from '../deployments/definitions.js';
import { capture, openStored } from '../document/capture.js';
import {
  publishedEvent,
  relativeId,
  type StoredEvent,
  savedEvent,
  storedEvent,
  typeOf,
} from '../document/step-events.js';
import { signalInbox } from '../leases/handover.js';
import { JobRunner } from './job-runner.js';
import type { LoopHost } from './loop-host.js';
import { settledState } from './settle.js';
import { TimerWake } from './timer-wake.js';

/** How long a delivery to an instance another engine holds waits before it is tried again. */
const HELD_RETRY_MS = 1_000;

/**
 * What the loop performs: the core's effects, and a checkpoint's events in their stored form — a step's, or a
 * checkpoint's published again (`again`) by an engine that took its instance over — each built whole (instance,
 * time `at` unless its own) only when someone listens.
 */
type Performed = Effect | { type: 'publish'; stored: StoredEvent; at: number; again?: true };

/** What a restore publishes again: a checkpoint's events in their stored form, and when it was written. */
export interface Republish {
  capturedAt: number;
  events: StoredEvent[];
}

/**
 * The loop of one instance: the single writer of its state. Every event is applied by the core, made
 * durable, and only then are the effects the step produced performed — by `perform`, the one place an effect
 * leaves the instance (events published, handlers called, outbox entries delivered, timers set) — so a crash
 * may repeat an effect but never lose one.
 */
export class InstanceRuntime {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  // Made on first use: most loops in memory are parked instances that never use them.
  private jobRunner: JobRunner | undefined;
  /** Wakes the instance at its BPMN timers (`wake()` makes it). */
  private timerWake: TimerWake | undefined;
  private settledWaiters: Array<() => void> = [];
  /** Effects still reaching the outside (a thrown signal on its way): the instance is not settled yet. */
  private inFlightEffects = 0;
  private broken: Error | null = null;
  private stopped = false;
  /** The latest put let go of the instance's lease with it (`endsUnheard`): its end releases nothing more. */
  private releasedWithPut = false;
  /** Parked and let go of (dehydrated): calls go to the loop `residency.revive` restores. */
  private retired = false;

  constructor(
    private readonly host: LoopHost<InstanceRuntime>,
    private readonly process: ProcessDef,
    private state: InstanceState,
    /** The seq of the latest durable checkpoint; null before the first. */
    private seq: number | null,
    /** How many deployments a new instance's deployment was chosen among: its first put lets the store check. */
    private readonly deploymentsSeen?: number,
  ) {}

  get id(): string {
    return this.state.instance.id;
  }

  get current(): InstanceState {
    return this.state;
  }

  /** The instance's pinned process definition. */
  get definition(): ProcessDef {
    return this.process;
  }

  get latestSeq(): number {
    return this.seq ?? -1;
  }

  /** Apply an event, persist, perform its effects. Rejects (state unchanged) when the event is refused. */
  submit(event: InstanceEvent): Promise<void> {
    if (this.retired) return this.host.residency.revive(this.id).then((live) => live.submit(event));
    return this.enqueue(async () => {
      // Decided in turn, not when submitted: two cancels can be under way at once (a parent's, and a restored
      // orphan's own), and the second finds the instance ended. Ended is as cancelled as it gets: nothing to write.
      if (event.type === 'instance.cancel' && this.state.instance.status !== 'running') return;
      // Taken up already, by a step that came between (every step takes a yielded run up first).
      if (event.type === 'instance.continue' && this.state.instance.drain === undefined) return;
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
  async resume(journal: JournalEntry[], republish?: Republish): Promise<void> {
    let takes: Promise<void>[] = [];
    const seq = this.latestSeq;
    await this.enqueue(async () => {
      const events: InstanceEvent[] = journal
        .filter((entry) => this.state.jobs.has(entry.jobId))
        .map((entry) => ({ type: 'job.completed', jobId: entry.jobId, result: entry.result }));
      const effects = await this.step(events, NOTHING_OWED);
      if (this.host.events.listening('instance.restored')) {
        const at = this.host.settings.clock.now();
        // Each restore is an event of its own: two restores of one checkpoint are told apart by their time.
        const restored: Announcement = {
          id: eventId(this.id, 'instance.restored', seq, at),
          type: 'instance.restored',
          seq,
        };
        effects.unshift({ type: 'announce', event: restored });
      }
      // What the checkpoint restored published, first: its holder may have stopped before it left.
      if (republish) effects.unshift(...this.again(republish));
      takes = this.perform(effects);
    });
    await Promise.all(takes);
  }

  /** Publish events a checkpoint kept, as they are (an ended instance taken over from a holder that stopped). */
  publish(republish: Republish): void {
    this.perform(this.again(republish));
  }

  private again({ capturedAt, events }: Republish): Performed[] {
    return events.map((stored) => ({ type: 'publish', stored, at: capturedAt, again: true }));
  }

  /**
   * Take, for every open message subscription, the buffered messages that match it; resolves once they are
   * applied and durable. `correlateMessage` calls it after buffering a message, for the instances that
   * subscribed while it looked.
   */
  takeBuffered(): Promise<void> {
    if (this.retired) return this.host.residency.revive(this.id).then((live) => live.takeBuffered());
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
          working: (this.jobRunner?.busy ?? false) || this.inFlightEffects > 0,
          delivering: this.inFlightEffects > 0,
          backingOff: this.jobRunner?.backingOff() ?? [],
          now: this.host.settings.clock.now(),
        };
        const result = settledState(this.state, this.process, activity, options);
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
    this.jobRunner?.halt();
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
      if (!isStaleDeployments(error)) this.host.residency.fault(this.id, this.broken);
      throw error;
    }
  }

  /**
   * Apply events and make the result durable; returns the effects to perform: the checkpoint saved, then
   * what the core returned. Nothing is written when there were no events (a restore with an empty journal).
   * A refused event leaves the state as it was.
   */
  private async step(events: InstanceEvent[], owed?: Obligations): Promise<Performed[]> {
    let effects: Effect[];
    if (callsDecisions(this.process)) await this.host.settings.decisions.ready();
    // A restore is owed nothing, so it dispatches every job in flight; only those new in the step announce.
    const before = owed === NOTHING_OWED && events.length > 0 ? obligationsOf(this.state) : undefined;
    try {
      effects = applyEvents(this.context(), this.state, events, owed);
    } catch (error) {
      // The core may have changed records before refusing; go back to what is durable.
      await this.revert();
      throw error;
    }
    if (events.length === 0) return effects;
    const seq = this.seq === null ? 0 : this.seq + 1;
    const at = this.host.settings.clock.now();
    const { performed, stored } = this.stamp(effects, seq, at, before);
    await this.persist(seq, at, stored, this.endsUnheard(performed));
    // Built only for a listener: a persist point is the loop's hottest path.
    if (this.host.events.listening('checkpoint.saved')) {
      performed.unshift({ type: 'publish', stored: savedEvent(seq), at });
    }
    return performed;
  }

  /**
   * The step's events in the form its checkpoint keeps them (ids relative to the instance, a touchpoint cause's
   * seq this checkpoint's), to be stored with it and published from it: every announcement — the core's own
   * objects, made for this step alone — and a `job.dispatched` before each new job's dispatch (at its backoff's
   * end when it has one), so a kill between the commit and the publication loses none of them.
   */
  private stamp(
    effects: Effect[],
    seq: number,
    at: number,
    before: Obligations | undefined,
  ): { performed: Performed[]; stored: StoredEvent[] } {
    const performed: Performed[] = [];
    const stored: StoredEvent[] = [];
    const instanceId = this.id;
    // Once a step, not once an event: what a touchpoint event's stored form leaves out.
    const plan = processPlan(this.process).list;
    for (const effect of effects) {
      if (effect.type === 'announce') {
        const event = effect.event as unknown as StepEvent;
        if (event.type === 'touchpoint.updated' && event.cause !== null) event.causeSequence = seq;
        event.id = relativeId(instanceId, event.id);
        const kept = storedEvent(event, plan);
        stored.push(kept);
        performed.push({ type: 'publish', stored: kept, at });
        continue;
      }
      if (effect.type === 'dispatch') {
        const job = this.state.jobs.get(effect.jobId);
        const known = job !== undefined && before?.jobs.has(dispatchKey(job)) === true;
        if (job !== undefined && !known) {
          const attempt = job.failures + 1;
          const event: StepEvent = {
            id: relativeId(instanceId, jobEventId(instanceId, job.identity, 'job.dispatched', attempt)),
            type: 'job.dispatched',
            jobId: job.id,
            elementId: job.nodeId,
            taskType: job.taskType,
            attempt,
            ...listenerOf(job),
          };
          if (job.notBefore !== null && job.notBefore > at) event.at = job.notBefore;
          stored.push(event);
          performed.push({ type: 'publish', stored: event, at });
        }
      }
      performed.push(effect);
    }
    return { performed, stored };
  }

  private context(): CoreContext {
    const { settings } = this.host;
    return {
      process: this.process,
      now: settings.clock.now(),
      defaultRetries: settings.defaultRetries,
      backoff: settings.backoff,
      yieldAfter: settings.yieldAfter,
      stepLimit: settings.stepLimit,
      loopWarning: settings.loopWarning,
      decisions: settings.decisions.lookup,
    };
  }

  /**
   * Whether this step ends the instance and nothing it performs reaches anyone: no event heard or observed
   * (`checkpoint.saved` included), nothing delivered. Its put may then let go of the lease: there is nothing
   * to publish again, which is all an ending instance's lease still guards.
   */
  private endsUnheard(performed: Performed[]): boolean {
    if (this.state.instance.status === 'running') return false;
    const { events, telemetry } = this.host;
    if (telemetry.active || events.listening('checkpoint.saved')) return false;
    if (!performed.some((effect) => effect.type === 'ended')) return false;
    return performed.every(
      (effect) =>
        effect.type === 'ended' ||
        effect.type === 'timer.cancel' ||
        (effect.type === 'publish' && !events.listening(typeOf(effect.stored) as EngineEvent['type'])),
    );
  }

  /**
   * Write the state as checkpoint `seq` (the next), with the step's log entry (what it did, its events), pruning
   * the instance to the checkpoints the engine keeps; `releasing` lets go of the lease too.
   */
  private async persist(seq: number, at: number, events: StoredEvent[], releasing = false): Promise<void> {
    const keep = this.seq === null ? undefined : this.host.settings.keepCheckpoints;
    const captured = capture(this.state, seq, this.seq, at, events, keep);
    const checkpoint =
      this.seq === null && this.deploymentsSeen !== undefined
        ? { ...captured, deploymentsSeen: this.deploymentsSeen }
        : captured;
    // A new instance is claimed by its first put. One that ends keeps its lease until its last events are
    // published (the lease is what tells another engine they may not have been), unless none is heard.
    const claiming = this.seq === null && this.state.instance.status === 'running';
    const { telemetry } = this.host;
    const began = telemetry.metering ? performance.now() : 0;
    this.releasedWithPut = await this.durably(() => this.host.store.put(checkpoint, { claiming, releasing }));
    if (telemetry.metering) telemetry.checkpointWritten(performance.now() - began, checkpoint.bytes.byteLength);
    this.state.logged();
    this.seq = seq;
  }

  /**
   * Back to the latest checkpoint, read again from the store: a refused step is rare, and keeping each loop's
   * document in memory instead cost every parked instance its ~2 KB and `recover()` a fifth of its time. When it
   * cannot be read, memory is ahead of what is durable and the loop stops (`durably`), as after a failed write;
   * the caller hears the refusal either way.
   */
  private async revert(): Promise<void> {
    if (this.seq === null) return; // a new instance: nothing stored yet, and its refused start stores nothing
    const seq = this.seq;
    await this.durably(async () => {
      const stored = await this.host.store.read(this.id, seq);
      if (stored === undefined) {
        throw new InvalidStateError(`instance ${this.id}: its checkpoint at seq ${seq} is no longer stored`);
      }
      this.state = openStored(stored);
    }).catch(() => {});
  }

  /** Perform effects in order: the one way anything leaves the instance. Returns the buffered-message takes queued. */
  private perform(effects: Performed[]): Promise<void>[] {
    const takes: Promise<void>[] = [];
    let ended: Exclude<InstanceStatus, 'running'> | undefined;
    for (const effect of effects) {
      switch (effect.type) {
        case 'publish': {
          // Built whole only for whoever hears it; counted and traced once, when first published.
          const observed = effect.again !== true && this.host.telemetry.active;
          const heard = this.host.events.listening(typeOf(effect.stored) as EngineEvent['type']);
          if (!observed && !heard) break;
          const event = publishedEvent(effect.stored, this.id, effect.at, () => processPlan(this.process).list);
          if (observed) this.host.telemetry.observe(event, this.state.instance);
          if (heard) this.host.events.emit(event);
          break;
        }
        case 'announce':
          this.announce(effect.event);
          break;
        case 'ended':
          // Last: the lease goes only once every event of the write that ended it is published.
          ended = effect.status;
          break;
        case 'dispatch':
          if (!this.stopped) this.jobs().dispatch(effect.jobId);
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
        case 'continue':
          // A macrotask, not a microtask: other instances' steps, timers and I/O run before the run goes on.
          if (!this.stopped) setImmediate(() => void this.submit({ type: 'instance.continue' }).catch(() => {}));
          break;
        case 'message.take': {
          // Faults surface through the residency's fault and settled().
          const take = this.enqueue(() => this.takeBufferedNow(effect.subscriptionIds)).catch(() => {});
          takes.push(take);
          break;
        }
        default: {
          const unknown: never = effect;
          throw new Error(`the loop cannot perform ${JSON.stringify(unknown)}`);
        }
      }
    }
    if (ended !== undefined) this.host.residency.ended(this.id, ended, this.latestSeq, this.releasedWithPut);
    return takes;
  }

  /** Publish an event no checkpoint keeps (`instance.restored`), stamped with the instance and the time. */
  private announce(event: Announcement): void {
    const { events, settings } = this.host;
    if (!events.listening(event.type)) return;
    events.emit({ ...event, instanceId: this.id, at: settings.clock.now() } as EngineEvent);
  }

  private wake(): TimerWake {
    this.timerWake ??= new TimerWake(
      this.host.settings.clock,
      () => this.state.timers.values(),
      (timerId) => this.submit({ type: 'timer.fired', timerId }),
    );
    return this.timerWake;
  }

  private jobs(): JobRunner {
    this.jobRunner ??= new JobRunner({
      process: this.process,
      clock: this.host.settings.clock,
      handlers: this.host.settings.handlers,
      telemetry: this.host.telemetry,
      journal: (seq, write) => this.host.store.putWrites(this.id, seq, [write]),
      state: () => this.state,
      seq: () => this.seq,
      stopped: () => this.stopped,
      queued: () => this.queued,
      enqueue: (work) => this.enqueue(work),
      advance: async (events) => void this.perform(await this.step(events)),
      durably: (write) => this.durably(write),
      notifySettled: () => this.notifySettled(),
    });
    return this.jobRunner;
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
    const { store, settings } = this.host;
    for (const subscriptionId of subscriptionIds) {
      for (;;) {
        const subscription = this.state.subscriptions.get(subscriptionId);
        if (this.stopped || subscription === undefined || this.state.instance.status !== 'running') break;
        const { kind, name, correlationKey } = subscription;
        // A signal is in the buffer only when another engine handed it to this instance while this one held it.
        const [bufferName, key] = kind === 'signal' ? [signalInbox(name), this.id] : [name, correlationKey];
        const message: BufferedMessage | undefined = await this.durably(() =>
          store.takeMessage(bufferName, key, settings.clock.now(), this.id),
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
        await this.durably(() => store.deleteMessage(id));
      }
    }
  }

  // ── the outbox ──────────────────────────────────────────────────────────────────────────────────────

  /** Deliver an outbox entry (at least once: its id lets receivers take it once), then drop it. */
  private deliver(entryId: string): void {
    const entry: OutboxEntry | undefined = this.state.outbox.find((candidate) => candidate.id === entryId);
    if (!entry || this.stopped) return;
    this.inFlightEffects++;
    const done = (): void => {
      this.inFlightEffects--;
      this.notifySettled();
    };
    const attempt = (): void => {
      if (this.stopped) return done();
      this.host.deliveries.deliver(this, entry).then(
        () => this.submit({ type: 'outbox.delivered', entryId }).then(done, done),
        (error: unknown) => {
          // The other side of a call runs in another engine for now: deliver again once it may have let go.
          if (error instanceof InstanceHeldError && error.instanceId !== this.id && !this.broken) {
            this.host.settings.clock.setTimeout(attempt, HELD_RETRY_MS);
            return;
          }
          // Left in the outbox, the entry is delivered again on the next restore; the fault says why it was not now.
          if (!this.broken)
            this.host.residency.fault(this.id, error instanceof Error ? error : new Error(String(error)));
          done();
        },
      );
    };
    attempt();
  }

  // ── residency ───────────────────────────────────────────────────────────────────────────────────────

  private notifySettled(): void {
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const waiter of waiters) waiter();
    this.retireIfParked();
  }

  /** Running, and waiting only on the outside world or a BPMN timer: nothing queued, running or on its way out. */
  get parked(): boolean {
    const { instance } = this.state;
    if (instance.status !== 'running' || instance.drain || this.queued > 0 || this.jobRunner?.busy) return false;
    return !this.jobRunner?.hasBackoffs && this.inFlightEffects === 0 && this.state.outbox.length === 0;
  }

  /**
   * Dehydration: an instance that waits only on the outside world or on a BPMN timer (nothing queued, no
   * handler running, no backoff, nothing on its way out) leaves memory. Its state is durable as it stands;
   * its next event restores it.
   */
  retireIfParked(): void {
    if (this.retired || this.stopped || this.broken || !this.parked) return;
    if (!this.host.residency.mayRetire(this)) return;
    this.retired = true;
    this.halt();
    let earliest: number | undefined;
    for (const timer of this.state.timers.values())
      if (earliest === undefined || timer.dueAt < earliest) earliest = timer.dueAt;
    this.host.residency.retired(this, earliest);
  }
}
