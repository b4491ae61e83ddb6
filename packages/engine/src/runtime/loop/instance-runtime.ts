import {
  encodeJournalEntry,
  type InstanceRecord,
  type InstanceStatus,
  type JobRecord,
  type JournalEntry,
  type OutboxEntry,
  resultReceipt,
} from '@thresher/checkpoint';
import { InstanceHeldError } from '../../common/errors.js';
import type { EngineEvent } from '../../common/events.js';
import { type Announcement, dispatchKey, NOTHING_OWED, obligationsOf } from '../../core/step/effects.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/process-types.js';
import { processPlan } from '../../touchpoints/plan.js';
import type { SettledOptions, SettledState } from '../base/settled-types.js';
import type { Job } from '../base/types.js';
import { isStaleDeployments } from '../deployments/definitions.js';
import { publishedEvent, typeOf } from '../document/step-events.js';
import { type BufferTaker, takeBufferedMessages } from './buffered-messages.js';
import { assertWaitsOnJob, jobView, type Outcome } from './job-calls.js';
import { type JobLoop, JobRunner } from './job-runner.js';
import type { LoopHost } from './loop-host.js';
import { settledState } from './settle.js';
import { type Performed, type Republish, republished, restoredAt, StepWriter } from './step-writer.js';
import { TimerWake } from './timer-wake.js';

/** How long a delivery to an instance another engine holds waits before it is tried again. */
const HELD_RETRY_MS = 1_000;

/**
 * The loop of one instance: the single writer of its state. Every event is applied by the core, made
 * durable, and only then are the effects the step produced performed — by `perform`, the one place an effect
 * leaves the instance (events published, handlers called, outbox entries delivered, timers set) — so a crash
 * may repeat an effect but never lose one.
 */
export class InstanceRuntime implements JobLoop {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  /** The instance's state and its latest durable seq, and how a step becomes durable. */
  private readonly writer: StepWriter;
  // Made on first use: most loops in memory are parked instances that never use them.
  private jobRunner: JobRunner | undefined;
  /** Wakes the instance at its BPMN timers (`wake()` makes it). */
  private timerWake: TimerWake | undefined;
  private settledWaiters: Array<() => void> = [];
  /** Effects still reaching the outside (a thrown signal on its way): the instance is not settled yet. */
  private inFlightEffects = 0;
  private broken: Error | null = null;
  private stopped = false;
  /** Parked and let go of (dehydrated): calls go to the loop `residency.revive` restores. */
  private retired = false;

  constructor(
    private readonly host: LoopHost<InstanceRuntime>,
    process: ProcessDef,
    state: InstanceState,
    /** The seq of the latest durable checkpoint; null before the first. */
    seq: number | null,
    /** How many deployments a new instance's deployment was chosen among: its first put lets the store check. */
    deploymentsSeen?: number,
  ) {
    this.writer = new StepWriter(host, process, state, seq, (write) => this.durably(write), deploymentsSeen);
  }

  get id(): string {
    return this.writer.state.instance.id;
  }

  get current(): InstanceState {
    return this.writer.state;
  }

  /** The instance's pinned process definition. */
  get definition(): ProcessDef {
    return this.writer.process;
  }

  get latestSeq(): number {
    return this.writer.seq ?? -1;
  }

  /** Apply an event, persist, perform its effects. Rejects (state unchanged) when the event is refused. */
  submit(event: InstanceEvent): Promise<void> {
    if (this.retired) return this.host.residency.revive(this.id).then((live) => live.submit(event));
    return this.enqueue(async () => {
      // Decided in turn, not when submitted: two cancels can be under way at once (a parent's, and a restored
      // orphan's own), and the second finds the instance ended. Ended is as cancelled as it gets: nothing to write.
      if (event.type === 'instance.cancel' && this.writer.state.instance.status !== 'running') return;
      // Taken up already, by a step that came between (every step takes a yielded run up first).
      if (event.type === 'instance.continue' && this.writer.state.instance.drain === undefined) return;
      this.perform(await this.writer.step([event]));
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
        .filter((entry) => this.writer.state.jobs.has(entry.jobId))
        .map((entry) => ({ type: 'job.completed', jobId: entry.jobId, result: entry.result }));
      const effects = await this.writer.step(events, NOTHING_OWED);
      if (this.host.events.listening('instance.restored')) {
        effects.unshift(restoredAt(this.id, seq, this.host.settings.clock.now()));
      }
      // What the checkpoint restored published, first: its holder may have stopped before it left.
      if (republish) effects.unshift(...republished(republish));
      takes = this.perform(effects);
    });
    await Promise.all(takes);
  }

  /** Publish events a checkpoint kept, as they are (an ended instance taken over from a holder that stopped). */
  publish(republish: Republish): void {
    this.perform(republished(republish));
  }

  /**
   * Take, for every open message subscription, the buffered messages that match it; resolves once they are
   * applied and durable. `correlateMessage` calls it after buffering a message, for the instances that
   * subscribed while it looked.
   */
  takeBuffered(): Promise<void> {
    if (this.retired) return this.host.residency.revive(this.id).then((live) => live.takeBuffered());
    return this.enqueue(() => takeBufferedMessages(this.bufferTaker(), [...this.writer.state.subscriptions.keys()]));
  }

  /**
   * A worker outside the engine completed, failed or updated a job (`event`, on job `jobId`; `shownId` names it
   * in a refusal): applied in its turn, refused (state unchanged) when the instance no longer waits on the job
   * — it is gone (`NotFoundError`), or failed into an incident (`InvalidStateError`).
   */
  workerCommand(jobId: string, shownId: string, event: InstanceEvent): Promise<void> {
    if (this.retired) {
      return this.host.residency.revive(this.id).then((live) => live.workerCommand(jobId, shownId, event));
    }
    return this.enqueue(async () => {
      assertWaitsOnJob(this.writer.state, jobId, shownId);
      this.perform(await this.writer.step([event]));
    });
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
        const result = settledState(this.writer.state, this.writer.process, activity, options);
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

  /** Perform effects in order: the one way anything leaves the instance. Returns the buffered-message takes queued. */
  private perform(effects: Performed[]): Promise<void>[] {
    const takes: Promise<void>[] = [];
    if (this.jobRunner?.hasQueued) {
      const { jobs } = obligationsOf(this.writer.state);
      this.jobRunner.withdrawStale(this.id, (jobId, attempt) =>
        jobs.has(dispatchKey({ id: jobId, failures: attempt - 1 })),
      );
    }
    let ended: Exclude<InstanceStatus, 'running'> | undefined;
    for (const effect of effects) {
      switch (effect.type) {
        case 'publish': {
          // Built whole only for whoever hears it; counted and traced once, when first published.
          const observed = effect.again !== true && this.host.telemetry.active;
          const heard = this.host.events.listening(typeOf(effect.stored) as EngineEvent['type']);
          if (!observed && !heard) break;
          const event = publishedEvent(effect.stored, this.id, effect.at, () => processPlan(this.writer.process).list);
          if (observed) this.host.telemetry.observe(event, this.writer.state.instance);
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
          const take = this.enqueue(() => takeBufferedMessages(this.bufferTaker(), effect.subscriptionIds)).catch(
            () => {},
          );
          takes.push(take);
          break;
        }
        default: {
          const unknown: never = effect;
          throw new Error(`the loop cannot perform ${JSON.stringify(unknown)}`);
        }
      }
    }
    if (ended !== undefined) this.host.residency.ended(this.id, ended, this.latestSeq, this.writer.releasedWithPut);
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
      () => this.writer.state.timers.values(),
      (timerId) => this.submit({ type: 'timer.fired', timerId }),
    );
    return this.timerWake;
  }

  private jobs(): JobRunner {
    this.jobRunner ??= new JobRunner(this.host, this);
    return this.jobRunner;
  }

  /** The job as its handler sees it (`JobLoop`); undefined once the loop stopped or the job is gone. */
  runnable(jobId: string): { job: JobRecord; view: Job; instance: InstanceRecord } | undefined {
    const { state, process } = this.writer;
    const job = state.jobs.get(jobId);
    if (this.stopped || !job) return undefined;
    return { job, view: jobView(state, process, job), instance: state.instance };
  }

  /** A job is in the store's queue (`JobLoop`): workers may hear of it; or it is not, and the loop stops. */
  offered(taskType: string, error?: Error): void {
    if (error) {
      if (this.broken) return;
      // Not queued, no worker finds the job: the instance leaves memory and is taken up again, offering it anew.
      this.broken = error;
      this.host.residency.fault(this.id, error);
    } else {
      this.host.settings.jobQueued(taskType);
    }
    this.notifySettled();
  }

  /**
   * A handler's outcome, as a work item of the loop (`JobLoop`); a stopped loop, or a job cancelled meanwhile
   * (terminate), takes none. With nothing else waiting for the loop, the checkpoint that applies a result is the
   * next write, at once: it alone makes the result durable (a kill before it runs the handler again, as a kill
   * before a journal entry would). Behind other work, the result is journaled first.
   */
  finished(jobId: string, outcome: Outcome): Promise<void> {
    if (this.stopped || !this.writer.state.jobs.has(jobId)) {
      this.jobRunner?.taken(jobId);
      this.notifySettled();
      return Promise.resolve();
    }
    const busy = this.queued > 0;
    return this.enqueue(async () => {
      this.jobRunner?.taken(jobId);
      if (!('result' in outcome)) {
        const { error, retryable, errorCode } = outcome;
        const failed = { type: 'job.failed', jobId, error, retryable } as const;
        this.perform(await this.writer.step([errorCode === undefined ? failed : { ...failed, errorCode }]));
        return;
      }
      const { result } = outcome;
      const job = this.writer.state.jobs.get(jobId);
      const seq = this.writer.seq;
      if (!job || seq === null) return;
      if (busy || this.queued !== 1) {
        const entry: JournalEntry = { jobId, result, receipt: resultReceipt(job.identity, result) };
        const write = { taskId: jobId, index: 0, value: encodeJournalEntry(entry) };
        await this.durably(() => this.host.store.putWrites(this.id, seq, [write]));
      }
      this.perform(await this.writer.step([{ type: 'job.completed', jobId, result }]));
    });
  }

  /** What taking buffered messages needs of this loop. */
  private bufferTaker(): BufferTaker {
    return {
      id: this.id,
      state: () => this.writer.state,
      stopped: () => this.stopped,
      store: this.host.store,
      clock: this.host.settings.clock,
      durably: (write) => this.durably(write),
      apply: async (event) => void this.perform(await this.writer.step([event])),
    };
  }

  // ── the outbox ──────────────────────────────────────────────────────────────────────────────────────

  /** Deliver an outbox entry (at least once: its id lets receivers take it once), then drop it. */
  private deliver(entryId: string): void {
    const entry: OutboxEntry | undefined = this.writer.state.outbox.find((candidate) => candidate.id === entryId);
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
    const { instance } = this.writer.state;
    if (instance.status !== 'running' || instance.drain || this.queued > 0 || this.jobRunner?.busy) return false;
    return !this.jobRunner?.hasBackoffs && this.inFlightEffects === 0 && this.writer.state.outbox.length === 0;
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
    for (const timer of this.writer.state.timers.values())
      if (earliest === undefined || timer.dueAt < earliest) earliest = timer.dueAt;
    this.host.residency.retired(this, earliest);
  }
}
