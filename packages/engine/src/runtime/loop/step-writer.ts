/**
 * How one step of an instance becomes durable: the core applies its events, the effects get the form the
 * checkpoint keeps them in, and the checkpoint is written with the step's log entry. A step the core refuses goes
 * back to what is durable. The loop's writer: it holds the instance's state and the seq of its latest checkpoint.
 *
 * @module
 */
import type { StepEvent } from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import type { EngineEvent } from '../../common/events.js';
import { listenerOf } from '../../core/activities.js';
import { applyEvents } from '../../core/apply.js';
import type { CoreContext } from '../../core/step/context.js';
import { dispatchKey, type Effect, NOTHING_OWED, type Obligations, obligationsOf } from '../../core/step/effects.js';
import { eventId, jobEventId } from '../../core/step/event-ids.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/process-types.js';
import { processPlan } from '../../touchpoints/plan.js';
import { callsDecisions } from '../deployments/decisions.js';
import { capture, openStored } from '../document/capture.js';
import { relativeId, type StoredEvent, savedEvent, storedEvent, typeOf } from '../document/step-events.js';
import type { LoopHost } from './loop-host.js';

/**
 * What the loop performs: the core's effects, and a checkpoint's events in their stored form — a step's, or a
 * checkpoint's published again (`again`) by an engine that took its instance over — each built whole (instance,
 * time `at` unless its own) only when someone listens.
 */
export type Performed = Effect | { type: 'publish'; stored: StoredEvent; at: number; again?: true };

/** What a restore publishes again: a checkpoint's events in their stored form, and when it was written. */
export interface Republish {
  capturedAt: number;
  events: StoredEvent[];
}

/** A checkpoint's events, to be published again as they are. */
export function republished({ capturedAt, events }: Republish): Performed[] {
  return events.map((stored) => ({ type: 'publish', stored, at: capturedAt, again: true }));
}

/** A restore's `instance.restored`: each restore is an event of its own, told apart from another by its time. */
export function restoredAt(instanceId: string, seq: number, at: number): Performed {
  return {
    type: 'announce',
    event: { id: eventId(instanceId, 'instance.restored', seq, at), type: 'instance.restored', seq },
  };
}

/** A write of the loop: a failure stops the loop for good (`InstanceRuntime#durably`). */
export type Durably = <T>(write: () => Promise<T>) => Promise<T>;

export class StepWriter {
  /** The latest put let go of the instance's lease with it (`endsUnheard`): its end releases nothing more. */
  releasedWithPut = false;

  constructor(
    private readonly host: LoopHost<unknown>,
    /** The instance's process: a migration (`instance.migrate`) moves it onto another once durable. */
    public process: ProcessDef,
    public state: InstanceState,
    /** The seq of the latest durable checkpoint; null before the first. */
    public seq: number | null,
    private readonly durably: Durably,
    /** How many deployments a new instance's deployment was chosen among: its first put lets the store check. */
    private readonly deploymentsSeen?: number,
  ) {}

  /**
   * Apply events and make the result durable; returns the effects to perform: the checkpoint saved, then
   * what the core returned. Nothing is written when there were no events (a restore with an empty journal).
   * A refused event leaves the state as it was.
   */
  async step(events: InstanceEvent[], owed?: Obligations): Promise<Performed[]> {
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
    for (const event of events) if (event.type === 'instance.migrate') this.process = event.target;
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
    const instanceId = this.state.instance.id;
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
    const instanceId = this.state.instance.id;
    await this.durably(async () => {
      const stored = await this.host.store.read(instanceId, seq);
      if (stored === undefined) {
        throw new InvalidStateError(`instance ${instanceId}: its checkpoint at seq ${seq} is no longer stored`);
      }
      this.state = openStored(stored);
    }).catch(() => {});
  }
}
