import {
  type InstanceStatus,
  type Lease,
  LeaseLostError,
  type Repository,
  type StoredCheckpoint,
} from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import { InstanceHeldError, InvalidStateError, NotFoundError } from '../../common/errors.js';
import { Recent } from '../../common/recent.js';
import type { InstanceState } from '../../core/step/state.js';
import type { SettledOptions, SettledState } from '../base/settled-types.js';
import type { WorkerCounts } from '../base/types.js';
import type { Definitions } from '../deployments/definitions.js';
import { openStored, restore } from '../document/capture.js';
import { leaveLoggedPast } from '../document/instance-log.js';
import type { Leases } from '../leases/leases.js';
import { InstanceRuntime } from '../loop/instance-runtime.js';
import type { LoopHost, LoopResidency } from '../loop/loop-host.js';
import { settledState } from '../loop/settle.js';
import type { CallLinks } from './call-links.js';

/** An instance's latest checkpoint as read while this engine held its lease with `token`. */
interface HeadUnderLease {
  stored: StoredCheckpoint;
  token: number;
}

/** How many ended instances an engine remembers at least for `settled` (~100 bytes each; at most twice as many). */
const ENDED_REMEMBERED = 10_000;
/** How many lost leases an engine remembers at least, to report each loss once (a few dozen bytes each). */
const LOST_LEASES_KEPT = 10_000;

type EndedStatus = Exclude<InstanceStatus, 'running'>;

/** What the instances of an engine need from it; `loopHost` and `calls` are read late (they are built after). */
export interface InstancesDeps {
  repository: Repository;
  clock: Clock;
  leases: Leases;
  definitions: Definitions;
  loopHost(): LoopHost<InstanceRuntime>;
  calls(): CallLinks;
  /** A retired instance's earliest BPMN timer: wake it through the store's index then. */
  armDue(dueAt: number): void;
  /** Tell the engine's `onFault` listeners. */
  reportFault(instanceId: string, error: Error): void;
  dehydrating(): boolean;
  closed(): boolean;
  /** Throws when the engine is closed. */
  assertOpen(): void;
}

/**
 * The instances an engine has in memory, and how one gets there: claimed under its lease, restored from the
 * store, rejoined with its calls. Every path that brings an instance into memory goes through `runtime`; every
 * way a loop leaves it (ended, faulted, retired) comes through the {@link LoopResidency} this book is.
 */
export class Instances implements LoopResidency<InstanceRuntime> {
  private readonly live = new Map<string, InstanceRuntime>();
  private readonly loading = new Map<string, Promise<InstanceRuntime>>();
  /** Loops made only to read an instance that had ended when it was read. */
  private readonly endedWhenRead = new WeakSet<InstanceRuntime>();
  /**
   * The latest instances this engine ended, with how and at which seq: an ended instance never runs again
   * (`rollback` is refused past a checkpoint that opens, and its end does), so `settled` needs no read.
   */
  private readonly endedHere = new Recent<string, { status: EndedStatus; seq: number }>(ENDED_REMEMBERED);
  /**
   * Heads read in bulk under this engine's leases (`recover`), each for the next restore of its instance:
   * until the instance is first in memory again only its own loop could have written it, and it had none.
   */
  private readonly prefetched = new Map<string, HeadUnderLease>();
  /** The token of the lease each instance lost last (at least the latest `LOST_LEASES_KEPT`), so a loss counts once. */
  private readonly lostLeases = new Recent<string, number>(LOST_LEASES_KEPT);
  /** What happened to instances here, for workers' counts. */
  readonly tally: Pick<WorkerCounts, 'completed' | 'released' | 'lost'> = { completed: 0, released: 0, lost: 0 };

  constructor(private readonly deps: InstancesDeps) {}

  get size(): number {
    return this.live.size + this.loading.size;
  }

  /** The loop in memory, if there is one (not one being restored). */
  loaded(instanceId: string): InstanceRuntime | undefined {
    return this.live.get(instanceId);
  }

  /** Whether the instance is in memory or on its way there. */
  has(instanceId: string): boolean {
    return this.live.has(instanceId) || this.loading.has(instanceId);
  }

  /** Whether `runtime` is the loop this engine runs the instance with now. */
  isCurrent(runtime: InstanceRuntime): boolean {
    return this.live.get(runtime.id) === runtime && !this.loading.has(runtime.id);
  }

  entries(): IterableIterator<[string, InstanceRuntime]> {
    return this.live.entries();
  }

  values(): IterableIterator<InstanceRuntime> {
    return this.live.values();
  }

  /** A new instance's loop, before its first event. */
  add(runtime: InstanceRuntime): void {
    this.live.set(runtime.id, runtime);
  }

  /** The loop is gone from memory: the instance retired, or failed to start. */
  drop(instanceId: string): void {
    this.live.delete(instanceId);
  }

  /**
   * The instance ended here, durably at `seq`, and the events of that write are published: its loop leaves
   * memory, how it ended stays (the newest ones), and its lease goes — unless the write let go of it already.
   */
  ended(instanceId: string, status: EndedStatus, seq: number, released: boolean): void {
    this.tally.completed++;
    this.live.delete(instanceId);
    this.endedHere.set(instanceId, { status, seq });
    // An ended instance is never claimed again; a release that fails only leaves a lease to lapse.
    if (!released) this.deps.leases.release(instanceId).catch(() => {});
  }

  /** A parked loop may leave memory when this engine dehydrates, is open, and runs the instance with it. */
  mayRetire(runtime: InstanceRuntime): boolean {
    return this.deps.dehydrating() && !this.deps.closed() && this.isCurrent(runtime);
  }

  /** A parked loop left memory: its lease goes, and its earliest timer is woken through the store. */
  retired(runtime: InstanceRuntime, earliestDue: number | undefined): void {
    this.drop(runtime.id);
    this.deps.loopHost().telemetry.left(runtime.id);
    this.tally.released++;
    // A release that fails leaves a lease to lapse: this engine re-adopts it, another waits it out.
    this.deps.leases.release(runtime.id).catch(() => {});
    if (earliestDue !== undefined) this.deps.armDue(earliestDue);
  }

  /** A retired loop's next call: the instance restored. */
  revive(instanceId: string): Promise<InstanceRuntime> {
    return this.runtime(instanceId);
  }

  /** Whether `runtime` was made only to read an instance that had already ended. */
  wasEndedWhenRead(runtime: InstanceRuntime): boolean {
    return this.endedWhenRead.has(runtime);
  }

  /**
   * Read the heads of those of `instanceIds` this engine holds and has not loaded, in one store read, and keep
   * each for its next restore (see `prefetched`); `dropPrefetched` when done. Each is used only under the
   * lease it was read under (its token taken before the read).
   */
  async readAhead(instanceIds: readonly string[]): Promise<void> {
    const { leases, repository } = this.deps;
    const tokens = new Map<string, number>();
    for (const id of instanceIds) {
      const token = leases.tokenOf(id);
      if (token !== undefined && !this.has(id)) tokens.set(id, token);
    }
    if (tokens.size === 0) return;
    for (const stored of await repository.getMany([...tokens.keys()])) {
      const token = tokens.get(stored.instanceId);
      if (token !== undefined) this.prefetched.set(stored.instanceId, { stored, token });
    }
  }

  dropPrefetched(): void {
    this.prefetched.clear();
  }

  /** The live loop of an instance, restoring it from the repository when it is not in memory. */
  runtime(instanceId: string): Promise<InstanceRuntime> {
    const live = this.live.get(instanceId);
    if (live) return Promise.resolve(live);
    this.deps.assertOpen();
    let loading = this.loading.get(instanceId);
    if (!loading) {
      loading = this.restore(instanceId).finally(() => this.loading.delete(instanceId));
      this.loading.set(instanceId, loading);
    }
    return loading;
  }

  /**
   * Stop an instance where it stands: every track is cancelled (its called children with it) and it ends
   * `terminated`. A called child is cancelled through its root, as in Zeebe. An instance that has already
   * ended is left as it is (cancelling is idempotent).
   */
  async cancel(instanceId: string): Promise<void> {
    const runtime = await this.runtime(instanceId);
    const { parentId, callNodeId } = runtime.current.instance;
    if (parentId !== null) {
      throw new InvalidStateError(
        `instance ${instanceId} was called by instance ${parentId} at "${callNodeId}": cancel the instance at the root of its call tree instead`,
      );
    }
    await runtime.submit({ type: 'instance.cancel' });
  }

  /** Wait for restores under way; then stop every loop after its current write. Returns the busy ones. */
  async stopAll(): Promise<Set<string>> {
    await Promise.allSettled([...this.loading.values()]);
    const runtimes = [...this.live.values()];
    const busy = new Set(runtimes.filter((runtime) => !runtime.parked).map((runtime) => runtime.id));
    await Promise.all(runtimes.map((runtime) => runtime.stop()));
    this.live.clear();
    return busy;
  }

  /**
   * An instance's loop stopped on a fault: out of memory, its lease forgotten when it is no longer ours. A
   * lease is lost once: its renewal and the write it guarded may both be refused, and both come here.
   */
  fault(instanceId: string, error: Error): void {
    if (error instanceof LeaseLostError && error.token !== null) {
      if (this.reportedLost(instanceId, error)) return;
      this.lostLeases.set(instanceId, error.token);
    }
    this.live.delete(instanceId);
    const { telemetry } = this.deps.loopHost();
    if (error instanceof LeaseLostError) telemetry.leaseLost();
    else telemetry.instanceFailed(error);
    telemetry.left(instanceId);
    // Not renewed, nor released: the lease lapses and the instance is taken up again — by a worker's look, a
    // `recover()`, this engine's next call — as a crashed engine's would be. Kept, it was renewed while nothing
    // here ran it (an ended child's undelivered end stranded its parent), and released, no worker took it up.
    this.deps.leases.forget(instanceId);
    if (error instanceof LeaseLostError) this.tally.lost++;
    this.deps.reportFault(instanceId, error);
  }

  /** Whether this very loss (the instance and the token it lost) was reported already. */
  private reportedLost(instanceId: string, error: LeaseLostError): boolean {
    return this.lostLeases.get(instanceId) === error.token;
  }

  /**
   * Messages and signals another engine sent while this one held the instance wait in the store's buffer:
   * the instances in memory that wait on one take them (workers on every look, others on every renewal).
   */
  async takeHandedMessages(): Promise<void> {
    const waiting = [...this.live.values()].filter((runtime) => runtime.current.subscriptions.size > 0);
    // Faults surface through onFault; one instance's failure does not keep the others from their messages.
    await Promise.allSettled(waiting.map((runtime) => runtime.takeBuffered()));
  }

  /** Restore instances whose timer is due; one held by another engine is that engine's to wake. */
  async wakeDue(instanceIds: string[]): Promise<void> {
    for (const instanceId of instanceIds) {
      if (this.deps.closed()) return;
      await this.runtime(instanceId).catch((error: unknown) => {
        if (error instanceof InstanceHeldError) return;
        this.deps.reportFault(instanceId, error instanceof Error ? error : new Error(String(error)));
      });
    }
  }

  /** Renew every held lease; an instance another engine took over stops here at once. */
  async renewLeases(): Promise<void> {
    if (this.deps.closed()) return;
    if (this.deps.dehydrating()) await this.takeHandedMessages();
    for (const { instanceId, error } of await this.deps.leases.renewAll()) {
      // Its loop met the loss first (a write refused): the loop in memory now, if any, is a later one.
      if (this.reportedLost(instanceId, error)) continue;
      this.live.get(instanceId)?.abandon(error);
      this.fault(instanceId, error);
    }
  }

  /**
   * An instance out of memory whose stored state owes nothing (no job, nothing in its outbox, no timer due)
   * and that no other engine holds has settled as stored: answered from the store without claiming or
   * restoring it. Without dehydration only an ended one is (a running one runs in memory here, so it is
   * restored); a `settled` right after an instance ended then costs one read, not a claim and a restore.
   * Undefined when it must be restored to tell.
   */
  async settledInStore(
    instanceId: string,
    options: SettledOptions | undefined,
  ): Promise<{ state: SettledState; seq: number } | undefined> {
    if (this.has(instanceId)) return undefined;
    const ended = this.endedHere.get(instanceId);
    if (ended) return { state: { instanceId, status: ended.status }, seq: ended.seq };
    const { repository, clock } = this.deps;
    const dehydrating = this.deps.dehydrating();
    // At work somewhere, or a crashed holder's; an ended instance keeps a lease only while it owes deliveries,
    // which its outbox says.
    if (dehydrating && (await repository.lease(instanceId))) return undefined;
    const stored = await repository.get(instanceId);
    if (!stored || stored.writes.length > 0) return undefined;
    let state: InstanceState;
    try {
      state = openStored(stored);
    } catch {
      return undefined; // the restore reports what is wrong with it
    }
    if (!dehydrating && state.instance.status === 'running') return undefined;
    if (state.jobs.size > 0 || state.outbox.length > 0) return undefined;
    const idle = { stepping: false, working: false, delivering: false, backingOff: [], now: clock.now() };
    // Its user tasks and ad-hoc sub-processes are shown with what their model says; its definition is deployed here.
    const modelled = state.userTasks.size > 0 || [...state.scopes.values()].some((scope) => scope.adHoc);
    const process = modelled ? await this.deps.definitions.pinnedProcess(state).catch(() => undefined) : undefined;
    const settled = settledState(state, process, idle, options);
    return settled && { state: settled, seq: stored.seq };
  }

  private async restore(instanceId: string): Promise<InstanceRuntime> {
    // Claimed before it is read: what another engine wrote up to its claim is what is restored. A head read
    // in bulk is that only under the very lease it was read under (one lost and claimed again has a new token).
    const head = this.prefetched.get(instanceId);
    this.prefetched.delete(instanceId);
    const { leases } = this.deps;
    const held = await leases.claimOne(instanceId);
    const current = held === true && head !== undefined && leases.tokenOf(instanceId) === head.token;
    try {
      return await this.restoreHeld(instanceId, held, current ? head.stored : undefined);
    } catch (error) {
      // Not restored here (unless a later step failed on a running loop): another engine may try it.
      if (!this.live.has(instanceId)) await this.deps.leases.release(instanceId).catch(() => {});
      throw error;
    }
  }

  private async restoreHeld(
    instanceId: string,
    held: true | Lease | false,
    head: StoredCheckpoint | undefined,
  ): Promise<InstanceRuntime> {
    const { repository, definitions, leases } = this.deps;
    const stored = head ?? (await repository.get(instanceId));
    if (!stored) throw new NotFoundError('instance', instanceId);
    const { state, process, journal, published } = await restore(stored, (restored) =>
      definitions.pinnedProcess(restored),
    );
    await leaveLoggedPast(repository, state);
    if (state.instance.status === 'running' && held !== true) {
      if (held) throw new InstanceHeldError(instanceId, held.owner, held.expiresAt);
      // Running with no live lease, yet not claimed: another engine's claim of it is under way (PostgreSQL
      // skips a row being claimed). Held, then, as a caller sees it: one that delivers tries again.
      throw new InstanceHeldError(instanceId, 'an engine claiming it now', this.deps.clock.now());
    }
    const calls = this.deps.calls();
    const links = await calls.relink(state);
    const runtime = new InstanceRuntime(this.deps.loopHost(), process, state, stored.seq);
    const ended = state.instance.status !== 'running';
    // Taken from a holder that stopped: what its last write announced goes out again (at least once).
    const republish = held === true && leases.takenOver(instanceId) ? published() : undefined;
    // An ended instance still under a lease is one whose engine died before delivering what its end owes (a
    // called child's end to its parent): a worker took it up (`lapsedOnly`) to make those deliveries.
    if (ended && held === true && state.outbox.length === 0) {
      if (republish) runtime.publish(republish);
      await leases.release(instanceId);
    }
    if (ended && (held !== true || state.outbox.length === 0)) {
      this.endedWhenRead.add(runtime);
      return runtime;
    }
    this.live.set(instanceId, runtime);
    await runtime.resume(journal, republish);
    if (ended) return runtime; // its deliveries are on their way; it lets go once they are made
    await calls.rejoin(runtime, links, (childId, error) => this.fault(childId, error));
    // Not while it is being restored (a call forwarded then would wait on this very restore), and not
    // before the caller that restored it had its turn (its event would restore it again). Only when this
    // engine dehydrates: the callback holds the instance until the event loop's next turn (`startWorker`
    // retires the parked ones when it turns dehydration on).
    if (this.deps.dehydrating()) setImmediate(() => runtime.retireIfParked());
    return runtime;
  }
}
