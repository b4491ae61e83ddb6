import { EventEmitter } from 'node:events';
import {
  type Deployment,
  encodeValue,
  type InstanceQuery,
  type InstanceSummary,
  type Repository,
  type Variables,
} from '@thresher/checkpoint';
import type {
  Clock,
  CorrelateOptions,
  CorrelateResult,
  DeployResult,
  EngineEvent,
  EngineEventType,
  EngineOptions,
  Handlers,
  InstanceView,
  RecoverReport,
  RollbackResult,
  SettledOptions,
  SettledState,
  SignalOptions,
  StartOptions,
  UserTaskFilter,
  UserTaskView,
  WorkerOptions,
} from './api-types.js';
import { EngineError, EngineErrorCode, InstanceHeldError, InvalidStateError, NotFoundError } from './common/errors.js';
import type { LiveTouchpoint } from './common/touchpoint-types.js';
import { newInstanceBody } from './core/records.js';
import { InstanceState } from './core/state.js';
import { aheadRecord, live } from './core/touchpoints.js';
import { compileShared } from './model/shared-models.js';
import type { ProcessDef } from './model/types.js';
import { CallLinks, type ParentLink } from './runtime/call-links.js';
import { openStored } from './runtime/capture.js';
import { defaultBackoff, systemClock } from './runtime/clock.js';
import { Definitions, isStaleDeployments, type StartChoice } from './runtime/definitions.js';
import { broadcastSignal, correlateMessage } from './runtime/deliveries.js';
import { DuePoll } from './runtime/due-poll.js';
import { newInstanceId } from './runtime/instance-ids.js';
import { InstanceRuntime, type RuntimeHost } from './runtime/instance-runtime.js';
import { type HeadUnderLease, Instances } from './runtime/instances.js';
import { DEFAULT_LEASE_TTL_MS, Leases } from './runtime/leases.js';
import { newOwner, ownerAlive, ownerGone } from './runtime/owners.js';
import { liveTouchpoints, userTaskQuestion } from './runtime/questions.js';
import { latestGoodSeq, rollback } from './runtime/rollback.js';
import { withChildWaits } from './runtime/settle.js';
import { scheduleTimerStarts, startOccurrence, type TimerStartHost } from './runtime/timer-starts.js';
import { instanceView, parseExternalId, userTaskView } from './runtime/views.js';
import { Worker } from './runtime/worker.js';
import type { TimerSchedule } from './timers/schedule.js';
import { processPlan } from './touchpoints/plan.js';
import type { OperatorQuestion } from './touchpoints/types.js';

/** `recover` reads the heads of this many instances at a time (one store read each batch). */
const RESTORE_BATCH = 500;
/** How often `start` chooses a deployment again when others were deployed meanwhile, before it gives up. */
const MAX_CHOICES = 10;

type Listener<T extends EngineEventType | '*'> = (
  event: T extends '*' ? EngineEvent : Extract<EngineEvent, { type: T }>,
) => void;

/**
 * A durable BPMN engine on one repository. Each instance has one loop that is its only writer; every
 * change is durable before any effect it records leaves the engine.
 *
 * @example
 * const engine = new Engine({ repository: createSqliteRepository({ path: 'app.db' }), handlers });
 * await engine.deploy(xml);
 * const id = await engine.start('order-fulfilment', { variables: { total: 120 } });
 * console.log(await engine.settled(id));
 */
export class Engine {
  readonly repository: Repository;
  private readonly clock: Clock;
  private readonly handlers: Handlers;
  private readonly host: RuntimeHost;
  private readonly deliveries: TimerStartHost;
  private readonly emitter = new EventEmitter();
  private readonly loops: Instances;
  private readonly definitions: Definitions;
  private readonly calls: CallLinks;
  private readonly leases: Leases;
  private readonly renewing: ReturnType<typeof setInterval>;
  private dehydrate: boolean;
  private readonly workers: Worker[] = [];
  private readonly duePoll: DuePoll;
  private closed = false;

  constructor(options: EngineOptions) {
    this.repository = options.repository;
    this.clock = options.clock ?? systemClock;
    const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
      throw new RangeError(`leaseTtlMs must be a positive integer of milliseconds, got ${ttlMs}`);
    }
    this.leases = new Leases(this.repository, this.clock, options.owner ?? newOwner(), ttlMs);
    ownerAlive(this.leases.owner);
    // Real time, not the engine's clock: a lease must outlive a pause of this process however the
    // engine's clock is driven. unref: holding leases never keeps a process alive.
    this.dehydrate = options.dehydrate ?? false;
    this.handlers = { ...options.handlers };
    this.definitions = new Definitions(this.repository);
    const instances = new Instances({
      repository: this.repository,
      clock: this.clock,
      leases: this.leases,
      definitions: this.definitions,
      host: () => this.host,
      calls: () => this.calls,
      reportFault: (instanceId, error) => this.emitter.emit('fault', { instanceId, error }),
      dehydrating: () => this.dehydrate,
      closed: () => this.closed,
      assertOpen: () => this.assertOpen(),
    });
    this.loops = instances;
    this.renewing = setInterval(() => void instances.renewLeases(), Math.max(1, Math.floor(ttlMs / 3)));
    this.renewing.unref();
    this.duePoll = new DuePoll(
      this.repository,
      this.clock,
      (instanceId) => instances.has(instanceId),
      (instanceIds) => instances.wakeDue(instanceIds),
      Math.floor(ttlMs / 3),
    );
    this.emitter.setMaxListeners(0);
    this.host = {
      repository: this.repository,
      clock: this.clock,
      handlers: this.handlers,
      defaultRetries: options.retries ?? 3,
      backoff: options.backoff ?? defaultBackoff,
      emit: (event) => this.publish(event),
      listening: (type) => this.emitter.listenerCount(type) > 0 || this.emitter.listenerCount('*') > 0,
      ended: (instanceId, released, status, seq) => {
        instances.tally.completed++;
        instances.ended(instanceId, status, seq);
        if (released) return this.leases.forget(instanceId);
        // An ended instance is never claimed again; a release that fails only leaves a lease to lapse.
        this.leases.release(instanceId).catch(() => {});
      },
      fence: (instanceId) => this.leases.fence(instanceId),
      mayRetire: (runtime) => this.dehydrate && !this.closed && instances.isCurrent(runtime),
      retired: (runtime, earliestDue) => {
        instances.drop(runtime.id);
        instances.tally.released++;
        // A release that fails leaves a lease to lapse: this engine re-adopts it, another waits it out.
        this.leases.release(runtime.id).catch(() => {});
        if (earliestDue !== undefined) this.duePoll.arm(earliestDue);
      },
      revive: (instanceId) => instances.runtime(instanceId),
      newClaim: () => this.leases.putClaim(),
      claimed: async (instanceId, lease) => {
        if (lease) return this.leases.adopt(lease);
        // Taken by a replayed first put's claim elsewhere, or a lease of ours or of a gone engine: as a claim.
        const claimed = await this.leases.claimOne(instanceId);
        if (claimed === true) return;
        if (claimed) throw new InstanceHeldError(instanceId, claimed.owner, claimed.expiresAt);
        throw new NotFoundError('instance', instanceId);
      },
      startNext: (digest, processId, entry) =>
        startOccurrence(this.deliveries, digest, processId, entry.startNode, entry.occurrence, {
          dueAt: entry.dueAt,
          cycle: entry.cycle,
        }),
      broadcast: (name, variables, signalId) =>
        this.broadcastSignal(name, { variables, signalId }).catch((error: unknown) =>
          this.emitter.emit('fault', {
            instanceId: '',
            error: error instanceof Error ? error : new Error(String(error)),
          }),
        ),
      call: (from, entry) => this.calls.deliver(from, entry),
      fault: (instanceId, error) => instances.fault(instanceId, error),
    };
    this.calls = new CallLinks({
      repository: this.repository,
      definitions: this.definitions,
      runtime: (instanceId) => instances.runtime(instanceId),
      loaded: (instanceId) => instances.loaded(instanceId),
      startChild: (childId, deployment, process, startNode, variables, link) =>
        this.startAt(deployment, process, startNode, variables, undefined, { id: childId }, link),
    });
    this.deliveries = {
      repository: this.repository,
      clock: this.clock,
      loaded: () => instances.entries(),
      runtime: (instanceId) => instances.runtime(instanceId),
      model: async (deployment) => (await this.definitions.from(deployment)).model,
      startAt: (deployment, process, startNode, variables) => this.startAt(deployment, process, startNode, variables),
      startWith: async (deployment, processId, startNode, options) => {
        const process = (await this.definitions.from(deployment)).model.processes.get(processId);
        if (!process) throw new NotFoundError('process', processId);
        return this.startAt(deployment, process, startNode, {}, undefined, options);
      },
      cancel: (instanceId) => this.cancel(instanceId),
    };
  }

  /** The name this engine holds leases under (`EngineOptions.owner`, or `<host>:<pid>:<nonce>`). */
  get owner(): string {
    return this.leases.owner;
  }

  /** Register or replace the handler of a task type. */
  handle(taskType: string, handler: Handlers[string]): this {
    this.handlers[taskType] = handler;
    return this;
  }

  /** Compile and store a model; the same model deployed twice is one deployment. Throws `ModelError`. */
  async deploy(xml: string): Promise<DeployResult> {
    this.assertOpen();
    const model = await compileShared(xml);
    const deployment = await this.repository.putDeployment({
      definitionId: model.definitionId,
      digest: model.digest,
      xml,
      deployedAt: this.clock.now(),
    });
    this.definitions.add(deployment, model);
    await scheduleTimerStarts(this.deliveries, deployment, model);
    return {
      definitionId: deployment.definitionId,
      version: deployment.version,
      digest: deployment.digest,
      processes: [...model.processes.values()].filter((p) => p.executable).map((p) => p.id),
      warnings: model.warnings.map((warning) => ({ ...warning })),
    };
  }

  /**
   * The touchpoints a new instance of the process would have, every one `ahead`, in the order and with the
   * indexes its run reports them by: what to brief a person on before `start`.
   */
  async plannedTouchpoints(processId: string, digest?: string): Promise<LiveTouchpoint[]> {
    const { process } = await this.definitions.findProcess(processId, digest);
    return processPlan(process).list.map((_, index) => live({ process }, index, aheadRecord()));
  }

  /** Start an instance of a process (the latest deployed version unless `digest` says). Returns its id. */
  async start(processId: string, options: StartOptions = {}): Promise<string> {
    this.assertOpen();
    for (let choice = 1; ; choice++) {
      const chosen: StartChoice =
        options.digest === undefined
          ? await this.definitions.chooseToStart(processId)
          : await this.definitions.findProcess(processId, options.digest);
      const { deployment, process, deploymentsSeen } = chosen;
      const startNode = process.startNodes[0];
      if (!startNode) {
        const starts = (process.eventStartNodes ?? []).join(', ');
        throw new InvalidStateError(
          `process ${processId} has no none start event: it starts by its events (${starts})`,
        );
      }
      try {
        const { variables = {}, businessKey } = options;
        return await this.startAt(
          deployment,
          process,
          startNode,
          variables,
          businessKey,
          undefined,
          undefined,
          deploymentsSeen,
        );
      } catch (error) {
        // Chosen among the deployments read before another was deployed: nothing was stored, choose again.
        if (!isStaleDeployments(error) || choice >= MAX_CHOICES) throw error;
        this.definitions.forget();
      }
    }
  }

  /** Create an instance and run it from `startNode` (a none start, or the event start an event triggered). */
  private async startAt(
    deployment: Deployment,
    process: ProcessDef,
    startNode: string,
    variables: Variables,
    businessKey?: string,
    scheduled?: { id: string; timer?: TimerSchedule },
    link?: ParentLink,
    /** How many deployments `deployment` was chosen among, for the store to check at the first put. */
    deploymentsSeen?: number,
  ): Promise<string> {
    const processId = process.id;
    encodeValue(variables, '$variables'); // refuse what cannot be stored before anything exists (the walk alone)
    const id = scheduled?.id ?? newInstanceId();
    const now = this.clock.now();
    const state = new InstanceState(
      newInstanceBody({
        id,
        processId,
        definition: { id: deployment.definitionId, version: deployment.version, digest: deployment.digest },
        status: 'running',
        businessKey: businessKey ?? null,
        parentId: link?.parentId ?? null,
        callNodeId: link?.callNodeId ?? null,
        ...(link ? { callerTrack: link.callerTrack } : {}),
        startedAt: now,
        endedAt: null,
        nextId: 0,
        receivedIds: [],
      }),
    );
    const runtime = new InstanceRuntime(this.host, process, state, null, null, deploymentsSeen);
    this.loops.add(runtime);
    try {
      await runtime.submit({
        type: 'instance.start',
        variables: { ...variables },
        startNode,
        ...(scheduled?.timer ? { timer: scheduled.timer } : {}),
      });
    } catch (error) {
      this.loops.drop(id);
      // Stored, then claimed by another engine before this one could: it runs there, it was started.
      if (error instanceof InstanceHeldError && error.instanceId === id) return id;
      throw error;
    }
    return id;
  }

  /**
   * Stop an instance where it stands: every track is cancelled (its called children with it) and it ends
   * `terminated`. A called child is cancelled through its root, as in Zeebe. An instance that has already
   * ended is left as it is (cancelling is idempotent).
   */
  async cancel(instanceId: string): Promise<void> {
    const runtime = await this.loops.runtime(instanceId);
    const { parentId, callNodeId } = runtime.current.instance;
    if (parentId !== null) {
      throw new InvalidStateError(
        `instance ${instanceId} was called by instance ${parentId} at "${callNodeId}": cancel the instance at the root of its call tree instead`,
      );
    }
    await runtime.submit({ type: 'instance.cancel' });
  }

  /**
   * Resolves once the instance has ended, or waits only for the outside world (user tasks, incidents,
   * messages, signals) or for time: BPMN timers and retry backoffs are listed with their due times, or
   * waited out with `{ timers: 'wait' }` / `{ retries: 'wait' }`. Never while a step, a handler, a due
   * timer or a due retry is under way.
   */
  async settled(instanceId: string, options?: SettledOptions): Promise<SettledState> {
    for (;;) {
      const stored = await this.loops.settledInStore(instanceId, options);
      const runtime = stored ? undefined : await this.loops.runtime(instanceId);
      const own = stored?.state ?? (await runtime!.settled(options));
      if (own.status !== 'waiting' || own.calls.length === 0) return own;
      // A call waits on its child: settled once the child is, and the child's end (if it came) is applied.
      const seq = stored?.seq ?? runtime!.latestSeq;
      const children = await Promise.all(own.calls.map((call) => this.settled(call.instanceId, options)));
      // Settled again when the instance moved on meanwhile: in memory, by another loop or a newer seq; out of
      // memory (ended, or retired and perhaps revived and retired again), by what the store holds.
      const now = this.loops.loaded(instanceId);
      const moved = now
        ? now !== runtime || now.latestSeq !== seq
        : (await this.repository.get(instanceId))?.seq !== seq;
      if (!moved) return children.reduce(withChildWaits, own);
    }
  }

  /**
   * Deliver a message to the one instance waiting for it (by name and correlation key; the lowest instance
   * id when several do), or else start an instance of the latest deployed process with a message start
   * event of that name. With a `messageId`, delivering the same message to that instance again changes
   * nothing.
   *
   * A message nobody takes is, by default (`timeToLive` 0), not kept: the result says it was not
   * correlated. With a `timeToLive` (ms) it is buffered in the repository (`buffered: true`): the first
   * instance to subscribe to its name and key before it expires takes it — exactly one, oldest message
   * first — as if it had been sent then. A full `recover()` drops the expired ones.
   */
  correlateMessage(name: string, options: CorrelateOptions = {}): Promise<CorrelateResult> {
    this.assertOpen();
    return correlateMessage(this.deliveries, name, options);
  }

  /**
   * Deliver a signal to every instance waiting for it, and start an instance of every latest deployed
   * process with a signal start event of that name. Returns the instances it reached or started. One another
   * engine holds gets it through the store: its holder takes it, once, on its next look.
   */
  broadcastSignal(name: string, options: SignalOptions = {}): Promise<string[]> {
    this.assertOpen();
    return broadcastSignal(this.deliveries, name, options);
  }

  /** The instance as it is now (live), or as its latest checkpoint says. */
  async instance(instanceId: string): Promise<InstanceView | undefined> {
    const live = this.loops.loaded(instanceId);
    const stored = live ? undefined : await this.repository.get(instanceId);
    if (!live && !stored) return undefined;
    const state = live ? live.current : openStored(stored!);
    // Its touchpoints are known only with its deployment here (the one it was started on).
    const process = await this.definitions.pinnedProcess(state).catch(() => undefined);
    const touchpoints = process ? liveTouchpoints(state, process) : null;
    const seq = live ? live.latestSeq : stored!.seq;
    return instanceView(state, seq, await this.definitions.deploymentOf(state), touchpoints);
  }

  /**
   * What an open user task (`<instanceId>/<taskId>`) asks a person: its options (from its form, else the
   * conditions of the exclusive gateway after it), its touchpoint, and when a boundary timer on it fires.
   * `forms` are the linked Camunda forms by form id (`zeebe:formDefinition formId`).
   */
  async question(taskId: string, options: { forms?: ReadonlyMap<string, unknown> } = {}): Promise<OperatorQuestion> {
    const { instanceId, localId } = this.parseId('userTask', taskId);
    const runtime = await this.loops.runtime(instanceId);
    const state = runtime.current;
    return userTaskQuestion(state, await this.definitions.pinnedProcess(state), localId, options.forms);
  }

  /** Instances in the repository, by what it indexes. */
  instances(query?: InstanceQuery): Promise<InstanceSummary[]> {
    return this.repository.instances(query);
  }

  /** Open user tasks of the instances this engine has loaded (after `recover()`, all running ones). */
  async userTasks(filter: UserTaskFilter = {}): Promise<UserTaskView[]> {
    // The loop asked for, even if it retired since (dehydration): its state is what was durable then.
    const runtimes = filter.instanceId ? [await this.loops.runtime(filter.instanceId)] : this.loops.values();
    const out: UserTaskView[] = [];
    for (const runtime of runtimes) {
      const state = runtime.current;
      if (filter.instanceId && state.instance.id !== filter.instanceId) continue;
      for (const task of state.userTasks.values()) {
        if (filter.elementId && task.nodeId !== filter.elementId) continue;
        out.push(userTaskView(state, task));
      }
    }
    return out;
  }

  /** Complete a user task (`<instanceId>/<taskId>`) with the variables it produced. */
  async completeUserTask(taskId: string, variables: Variables = {}): Promise<void> {
    const { instanceId, localId } = this.parseId('userTask', taskId);
    encodeValue(variables, '$variables');
    const runtime = await this.loops.runtime(instanceId);
    if (!runtime.current.userTasks.has(localId)) throw new NotFoundError('userTask', taskId);
    await runtime.submit({ type: 'userTask.completed', taskId: localId, variables: { ...variables } });
  }

  /** Resolve an incident and resume where it stopped: a failed job is dispatched again with fresh retries. */
  async retryIncident(incidentId: string): Promise<void> {
    const { instanceId, localId } = this.parseId('incident', incidentId);
    const runtime = await this.loops.runtime(instanceId);
    if (!runtime.current.incidents.has(localId)) throw new NotFoundError('incident', incidentId);
    await runtime.submit({ type: 'incident.retry', incidentId: localId });
  }

  /**
   * Restore every running instance (or the given ones) from the repository and continue each where it
   * was. An instance that cannot be restored is reported and the others go on. Each restored instance
   * first takes the buffered messages its subscriptions match (one it took before a crash, and had not yet
   * delivered, comes back to it). A full recover (no `instanceIds`) then deletes the buffered messages that
   * have expired: after the restores, so that none an instance took in time is dropped before it is
   * delivered.
   */
  async recover(options: { instanceIds?: string[] } = {}): Promise<RecoverReport> {
    this.assertOpen();
    const ids = options.instanceIds ?? (await this.runningInstanceIds());
    const report: RecoverReport = { restored: [], failed: [] };
    // One claim per batch, not per instance; those held elsewhere are reported one by one below.
    const held = await this.leases.claim(ids.filter((id) => !this.loops.loaded(id)));
    for (let at = 0; at < ids.length; at += RESTORE_BATCH) {
      const batch = ids.slice(at, at + RESTORE_BATCH);
      // The heads of those this engine holds in one read, after the claim; the others are read one by one.
      // Each is used only under the lease it was read under (its token taken before the read).
      const wanted = batch.filter((id) => held.has(id) && !this.loops.has(id));
      const tokens = new Map(wanted.map((id) => [id, this.leases.tokenOf(id)]));
      const heads: HeadUnderLease[] = [];
      for (const stored of await this.repository.getMany(wanted)) {
        const token = tokens.get(stored.instanceId);
        if (token !== undefined) heads.push({ stored, token });
      }
      this.loops.prefetch(heads);
      for (const instanceId of batch) {
        try {
          // One that had ended (another engine ran it to its end meanwhile) is not this engine's to restore.
          const runtime = await this.loops.runtime(instanceId);
          if (!this.loops.wasEndedWhenRead(runtime)) report.restored.push(instanceId);
        } catch (error) {
          report.failed.push({ instanceId, error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
      this.loops.dropPrefetched();
    }
    if (options.instanceIds === undefined) await this.repository.expireMessages(this.clock.now());
    return report;
  }

  /**
   * Roll an instance whose head cannot be opened (a corrupt document, an unknown schema, an unreadable
   * journal) back to checkpoint `to`: its state is written again as the new head, the bad checkpoints stay as
   * history. Refused (`RollbackRefusedError`) when that would forget what the instance durably did after
   * `to`. Not while this engine runs the instance; `recover` it afterwards.
   */
  async rollback(instanceId: string, options: { to: number }): Promise<RollbackResult> {
    this.assertOpen();
    if (this.loops.has(instanceId)) {
      throw new InvalidStateError(`instance ${instanceId} is running in this engine; it has a good head to run from`);
    }
    // Under the instance's lease, like every write: a crashed engine's is taken over, a live one's refused.
    const held = await this.leases.claimOne(instanceId);
    if (held !== true && held) throw new InstanceHeldError(instanceId, held.owner, held.expiresAt);
    try {
      const fence = held ? await this.leases.fence(instanceId) : undefined;
      return await rollback(this.repository, instanceId, options.to, this.clock.now(), fence);
    } finally {
      await this.leases.release(instanceId).catch(() => {});
    }
  }

  /** The newest checkpoint of an instance that opens, with its journal: where `rollback` can go. */
  latestGoodSeq(instanceId: string): Promise<number | undefined> {
    return latestGoodSeq(this.repository, instanceId);
  }

  /**
   * Make this engine a worker: it dehydrates (parked instances leave memory and release their lease), and
   * every `pollMs` it takes up work no engine is doing — instances whose holder stopped renewing its lease
   * (a worker that died: after the lease's time to live), and instances out of memory whose BPMN timer is
   * due — at most `concurrency` instances at work at once. Several workers on one store (processes, nodes on
   * one PostgreSQL) share the instances: each runs in one at a time. `stop()` the worker, then `close()`.
   */
  startWorker(options: WorkerOptions = {}): Worker {
    this.assertOpen();
    this.dehydrate = true;
    const instances = this.loops;
    for (const runtime of [...instances.values()]) runtime.retireIfParked();
    const worker = new Worker(
      {
        clock: this.clock,
        active: () => instances.size,
        claimLeftBehind: (limit) => this.leases.claimLapsed(limit),
        claimDue: async (limit) => {
          // More than there is room for: other workers are looking at the same list and claim some of it.
          const due = await this.repository.dueTimers(this.clock.now(), 4 * limit + instances.size);
          const ids = due.map((timer) => timer.instanceId);
          return this.leases.claimSome(
            ids.filter((id) => !instances.has(id)),
            limit,
          );
        },
        restore: async (instanceId) => {
          try {
            await instances.runtime(instanceId);
            return true;
          } catch (error) {
            if (error instanceof InstanceHeldError) return false;
            this.emitter.emit('fault', {
              instanceId,
              error: error instanceof Error ? error : new Error(String(error)),
            });
            throw error;
          }
        },
        takeHandedMessages: () => instances.takeHandedMessages(),
        counts: () => ({ ...instances.tally }),
      },
      options,
    );
    this.workers.push(worker);
    return worker;
  }

  /** Subscribe to engine events (`'*'` for all). Returns the unsubscribe function. */
  on<T extends EngineEventType | '*'>(type: T, listener: Listener<T>): () => void {
    this.emitter.on(type, listener as (event: EngineEvent) => void);
    return () => this.emitter.off(type, listener as (event: EngineEvent) => void);
  }

  /** Called when an instance's loop stopped because a write failed; the instance is dropped from memory. */
  onFault(listener: (fault: { instanceId: string; error: Error }) => void): () => void {
    this.emitter.on('fault', listener);
    return () => this.emitter.off('fault', listener);
  }

  /** Stop every loop after its current write. Handlers still running finish unheard; nothing durable is lost. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.renewing);
    this.duePoll.stop();
    await Promise.all(this.workers.map((worker) => worker.stop()));
    // Work under way (a job in flight, a delivery, a backoff) keeps its lease, to lapse: a worker then takes
    // it up, as it would from an engine that died. A parked instance is let go of at once.
    const busy = await this.loops.stopAll();
    await this.leases.releaseAll(busy);
    ownerGone(this.leases.owner);
  }

  // ── internals ───────────────────────────────────────────────────────────────────────────────────────

  private publish(event: EngineEvent): void {
    this.emitter.emit(event.type, event);
    this.emitter.emit('*', event);
  }

  private assertOpen(): void {
    if (this.closed) throw new EngineError(EngineErrorCode.Closed, 'the engine is closed');
  }

  private parseId(kind: 'userTask' | 'incident', id: string): { instanceId: string; localId: string } {
    const parsed = parseExternalId(id);
    if (!parsed) throw new NotFoundError(kind, id);
    return parsed;
  }

  private async runningInstanceIds(): Promise<string[]> {
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.repository.instanceIds({ status: 'running', limit: 5000, ...(after ? { after } : {}) });
      for (const id of page) ids.push(id);
      if (page.length < 5000) return ids;
      after = page[page.length - 1]!;
    }
  }
}
