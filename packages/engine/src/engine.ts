import type { Deployment, InstanceQuery, InstanceSummary, Variables } from '@thresher/checkpoint';
import type { EngineOptions, UserTaskFilter } from './api-types.js';
import { InstanceHeldError, InvalidStateError } from './common/errors.js';
import type { EngineEvent, EngineEventType, EngineListener } from './common/events.js';
import type { LiveTouchpoint } from './common/touchpoint-types.js';
import { ownerGone } from './runtime/base/owners.js';
import type { SettledOptions, SettledState } from './runtime/base/settled-types.js';
import type {
  CorrelateOptions,
  CorrelateResult,
  DecisionOutcome,
  DeployResult,
  Handlers,
  InstanceView,
  RecoverReport,
  RollbackResult,
  SignalOptions,
  StartOptions,
  TaskListenerResult,
  UserTaskChanges,
  UserTaskView,
  WorkerOptions,
} from './runtime/base/types.js';
import { type EventsQuery, type LoggedEvent, readEvents } from './runtime/document/event-log.js';
import type { EventReader } from './runtime/document/event-readers.js';
import { openEventReader } from './runtime/document/event-readers.js';
import { expireEnded } from './runtime/document/retention.js';
import { latestGoodSeq, rollback } from './runtime/document/rollback.js';
import { activateJobs, completeJob, failJob, throwJobError, updateJob } from './runtime/jobs/external-jobs.js';
import type {
  ActivatedJob,
  ActivateJobsOptions,
  FailJobOptions,
  ThrowJobErrorOptions,
  UpdateJobOptions,
} from './runtime/jobs/job-types.js';
import {
  activateAdHocElements,
  assignUserTask,
  completeUserTask,
  retryIncident,
  type SetVariablesOptions,
  setVariables,
  updateUserTask,
} from './runtime/parts/commands.js';
import {
  type ConditionalStart,
  type EvaluateConditionalsOptions,
  evaluateConditionals,
} from './runtime/parts/conditional-starts.js';
import { evaluateDecision } from './runtime/parts/decide.js';
import { deleteDeployment } from './runtime/parts/delete-deployment.js';
import { broadcastSignal } from './runtime/parts/deliveries.js';
import { deployFile, deployFiles } from './runtime/parts/deploys.js';
import { closedError, createEngineParts, type EngineParts } from './runtime/parts/engine-parts.js';
import { correlateMessage } from './runtime/parts/message-delivery.js';
import { type MigrateInstructions, migrateInstance } from './runtime/parts/migrate.js';
import { type ModifyInstructions, modifyInstance } from './runtime/parts/modify.js';
import { askUserTask, openUserTasks, plannedTouchpoints, readInstance, settledTree } from './runtime/parts/reads.js';
import { recoverInstances } from './runtime/parts/recovery.js';
import { startProcess } from './runtime/parts/starts.js';
import { startEngineWorker, type Worker } from './runtime/parts/worker.js';
import type { OperatorQuestion } from './touchpoints/types.js';

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
  private readonly parts: EngineParts;
  private readonly workers: Worker[] = [];

  constructor(options: EngineOptions) {
    this.parts = createEngineParts(options);
  }

  /** The name this engine holds leases under (`EngineOptions.owner`, or `<host>:<pid>:<nonce>`). */
  get owner(): string {
    return this.parts.leases.owner;
  }

  /** Register or replace the handler of a task type. */
  handle(taskType: string, handler: Handlers[string]): this {
    this.parts.handlers[taskType] = handler;
    return this;
  }

  /** Compile and store a model; the same model deployed twice is one deployment. Throws `ModelError`. */
  async deploy(xml: string): Promise<DeployResult> {
    this.assertOpen();
    return deployFile(this.parts, xml);
  }

  /**
   * Deploy several files (BPMN, DMN, forms) as one deployment, as Zeebe deploys several resources at once: each
   * is deployed as `deploy` deploys it (DMN first, so a process never finds its decisions missing), and a
   * process's `bindingType="deployment"` calls take what was deployed with it. Nothing is stored unless every
   * file compiles: a `ModelError` names the file's problems, its `fileIndex` which file.
   */
  async deployTogether(files: readonly string[]): Promise<DeployResult[]> {
    this.assertOpen();
    return deployFiles(this.parts, files);
  }

  /**
   * Delete a deployed file (`DeployResult.digest`) as Zeebe deletes a resource: it starts nothing more; the instances
   * on it run to their end and keep their history. Deploying it again undoes it.
   */
  async deleteDeployment(digest: string): Promise<void> {
    this.assertOpen();
    return deleteDeployment(this.parts, digest);
  }

  /** The touchpoints a new instance would have, each `ahead`, as its run indexes them: to brief a person on. */
  async plannedTouchpoints(processId: string, digest?: string): Promise<LiveTouchpoint[]> {
    return plannedTouchpoints(this.parts, processId, digest);
  }

  /** Start an instance of a process (the latest deployed version unless `digest` says). Returns its id. */
  async start(processId: string, options: StartOptions = {}): Promise<string> {
    this.assertOpen();
    return startProcess(this.parts, processId, options);
  }

  /**
   * Evaluate the conditional start events of the latest version of each deployed process (or of `processId`)
   * on `variables`, as Zeebe's conditional evaluation does: each that holds starts an instance with them.
   */
  async evaluateConditionals(options: EvaluateConditionalsOptions): Promise<ConditionalStart[]> {
    this.assertOpen();
    return evaluateConditionals(this.parts, options);
  }

  /** Stop an instance where it stands, its called children with it: it ends `terminated` (idempotent, as in Zeebe). */
  cancel(instanceId: string): Promise<void> {
    return this.parts.instances.cancel(instanceId);
  }

  /**
   * Resolves once the instance has ended, or waits only for the outside world or for time (timers and retry backoffs
   * listed with their due times, or waited out with `{ timers: 'wait' }` / `{ retries: 'wait' }`).
   */
  async settled(instanceId: string, options?: SettledOptions): Promise<SettledState> {
    return settledTree(this.parts, instanceId, options);
  }

  /**
   * Publish a message as Zeebe does: to at most one instance of each BPMN process id — the first waiting for it (by
   * name and correlation key), else a new instance of each latest process with a message start event of that name.
   * With a `timeToLive` (ms) it is kept for each process none of whose instances took it, until one waits for it. A
   * `messageId` kept already for that name and key is refused (`AlreadyExistsError`).
   */
  async correlateMessage(name: string, options: CorrelateOptions = {}): Promise<CorrelateResult> {
    this.assertOpen();
    return correlateMessage(this.parts.deliveries, name, options);
  }

  /** Evaluate a deployed decision (the latest, or deployment `digest`'s) as Zeebe does; a failure is in the outcome. */
  evaluateDecision(
    decisionId: string,
    options: { variables?: Variables; digest?: string } = {},
  ): Promise<DecisionOutcome> {
    this.assertOpen();
    return evaluateDecision(this.parts, decisionId, options);
  }

  /**
   * Deliver a signal to every instance waiting for it (through the store to those another engine holds), and start
   * every latest process with a signal start event of that name. Returns the instances it reached or started.
   */
  async broadcastSignal(name: string, options: SignalOptions = {}): Promise<string[]> {
    this.assertOpen();
    return broadcastSignal(this.parts.deliveries, name, options);
  }

  /**
   * The instance as it is now (live), or as its latest checkpoint says, with its past (completed elements,
   * flows taken, decisions) as its log keeps it.
   */
  async instance(instanceId: string): Promise<InstanceView | undefined> {
    return readInstance(this.parts, instanceId);
  }

  /**
   * What an open user task (`<instanceId>/<taskId>`) asks a person: its options (from its form, else the
   * conditions of the exclusive gateway after it), its touchpoint, and when a boundary timer on it fires.
   * `forms` are the linked Camunda forms by form id (`zeebe:formDefinition formId`).
   */
  async question(taskId: string, options: { forms?: ReadonlyMap<string, unknown> } = {}): Promise<OperatorQuestion> {
    return askUserTask(this.parts, taskId, options.forms);
  }

  /**
   * The events the store's log keeps, in commit order, with the position to read on from: what `on` published but
   * `instance.restored`. Events go with their instance (deleted, or expired by `retention.ended`), never before a
   * registered reader (`eventReader`) read them; a touchpoint event needs its instance's deployment to be read.
   */
  events(query?: EventsQuery): Promise<LoggedEvent[]> {
    return readEvents(this.parts.repository, this.parts.planOfEntry, query);
  }

  /**
   * A durable reader of the event feed, registered in the store as `name`: it reads on after the last event it
   * acknowledged, across restarts and processes, and retention deletes no event it has not read. A new one
   * starts at the log's start. `remove()` it when no one reads it any more, or ended instances are kept for it.
   */
  async eventReader(name: string): Promise<EventReader> {
    this.assertOpen();
    return openEventReader(this.parts.repository, this.parts.planOfEntry, name);
  }

  /**
   * Delete the instances that ended at or before `endedBefore` (epoch ms), their checkpoints and their log, as
   * `retention.ended` does on its own: but none a registered event reader has not read, none holding a lease
   * (its end not delivered yet), none with a running called child. Returns the ids deleted.
   */
  async expireEnded(endedBefore: number): Promise<string[]> {
    this.assertOpen();
    return expireEnded(this.parts.repository, endedBefore);
  }

  /** Instances in the repository, by what it indexes. */
  instances(query?: InstanceQuery): Promise<InstanceSummary[]> {
    return this.parts.repository.instances(query);
  }

  /**
   * The seq of an instance's latest checkpoint, or undefined when none is stored: it changes with every step
   * the instance makes, so a view can tell whether to read it again without reading its history.
   */
  async headSeq(instanceId: string): Promise<number | undefined> {
    return (await this.parts.repository.get(instanceId))?.seq;
  }

  /** The deployments stored (of one definition id when given), oldest first: files, manifests, deletions. */
  deployments(definitionId?: string): Promise<Deployment[]> {
    return this.parts.repository.deployments(definitionId);
  }

  /** The deployment of a digest (`DeployResult.digest`, `InstanceView.digest`), or undefined. */
  deployment(digest: string): Promise<Deployment | undefined> {
    return this.parts.repository.getDeployment(digest);
  }

  /** Open user tasks of the instances this engine has loaded (after `recover()`, all running ones). */
  async userTasks(filter: UserTaskFilter = {}): Promise<UserTaskView[]> {
    return openUserTasks(this.parts, filter);
  }

  /**
   * Complete a user task (`<instanceId>/<taskId>`) with the variables it produced. With completing listeners
   * (`zeebe:taskListener`), it is completed once they all allowed it: resolves when the first is on its way;
   * a denial leaves it open (`userTask.denied`). `action` is what they are told asked (`complete`).
   */
  async completeUserTask(taskId: string, variables: Variables = {}, options: { action?: string } = {}): Promise<void> {
    return completeUserTask(this.parts, taskId, variables, options);
  }

  /**
   * Assign a user task to `assignee`, or unassign it (null). With assigning listeners, once they allowed it
   * (`userTask.assigned`). `allowOverride: false` refuses a task assigned to someone else (a claim);
   * `action` is what the listeners are told asked (`assign`, `unassign`).
   */
  async assignUserTask(
    taskId: string,
    assignee: string | null,
    options: { action?: string; allowOverride?: boolean } = {},
  ): Promise<void> {
    return assignUserTask(this.parts, taskId, assignee, options);
  }

  /**
   * Change a user task's `candidateGroups`, `candidateUsers`, `dueDate`, `followUpDate` or `priority` ('' or null
   * clears one), once its updating listeners allowed it. A value that does not fit is an `InvalidArgumentError`.
   */
  async updateUserTask(taskId: string, changes: UserTaskChanges, options: { action?: string } = {}): Promise<void> {
    return updateUserTask(this.parts, taskId, changes, options);
  }

  /**
   * Activate elements of a running ad-hoc sub-process (`<instanceId>/<id>`, `instance(id).adHocSubProcesses`), each
   * with its `variables` as locals (as Zeebe); refused when done, or an element is given twice or has incoming flows.
   */
  async activateAdHocElements(
    adHocId: string,
    elements: readonly (string | { elementId: string; variables?: Variables })[],
  ): Promise<void> {
    return activateAdHocElements(this.parts, adHocId, elements);
  }

  /**
   * Set variables as Zeebe's SetVariables does (`SetVariablesOptions`): each where it is held from the scope outwards,
   * else in the root; `local` on the activation itself. Refused once the instance ended or the activation is gone.
   */
  async setVariables(instanceId: string, variables: Variables, options: SetVariablesOptions = {}): Promise<void> {
    return setVariables(this.parts, instanceId, variables, options);
  }

  /**
   * Modify a running instance as Zeebe does (`ModifyInstructions`): elements activated, element instances
   * terminated, in one step; a refusal (`InvalidArgumentError`, naming the element and the rule) changes nothing.
   */
  async modifyInstance(instanceId: string, instructions: ModifyInstructions): Promise<void> {
    return modifyInstance(this.parts, instanceId, instructions);
  }

  /** Move a running instance onto another process version as Zeebe migrates one (`MigrateInstructions`). */
  async migrateInstance(instanceId: string, instructions: MigrateInstructions): Promise<void> {
    return migrateInstance(this.parts, instanceId, instructions);
  }

  /** Resolve an incident and resume where it stopped: a failed job is dispatched again with fresh retries. */
  async retryIncident(incidentId: string): Promise<void> {
    return retryIncident(this.parts, incidentId);
  }

  /**
   * Lock up to `maxJobs` jobs of a type for a worker outside the engine (`externalJobs`), waiting up to
   * `requestTimeout` ms for one when none is there; any engine sharing the store may activate any of them.
   * A lock that expires (`timeout`) lets another worker activate the job; a kill changes nothing of it.
   */
  activateJobs(options: ActivateJobsOptions): Promise<ActivatedJob[]> {
    this.assertOpen();
    return activateJobs(this.parts, options);
  }

  /**
   * Complete a job a worker activated (`ActivatedJob.id`) with its variables; a task listener's job with a
   * `result` (corrections or a denial) and no variables. Refused, changing nothing, for a job that is gone
   * (`NotFoundError`) or waits on an incident, and for a task listener's result that cannot be taken.
   */
  completeJob(jobId: string, variables: Variables = {}, options: { result?: TaskListenerResult } = {}): Promise<void> {
    return completeJob(this.parts, jobId, variables, options.result);
  }

  /** Fail a job: with `retries` left it is activatable again after `retryBackOff` ms; with none, an incident. */
  failJob(jobId: string, options: FailJobOptions): Promise<void> {
    return failJob(this.parts, jobId, options);
  }

  /** Throw a BPMN error from a job: the nearest catcher takes it (with `variables`), else it is an incident. */
  throwJobError(jobId: string, options: ThrowJobErrorOptions): Promise<void> {
    return throwJobError(this.parts, jobId, options);
  }

  /** Set a job's `retries` left, or move an activated job's lock to expire `timeout` ms from now. */
  updateJob(jobId: string, changes: UpdateJobOptions): Promise<void> {
    return updateJob(this.parts, jobId, changes);
  }

  /**
   * Restore every running instance (or the given ones) from the repository and continue each where it
   * was. An instance that cannot be restored is reported and the others go on. Each restored instance
   * first takes the buffered messages its subscriptions match (one it took before a crash, and had not yet
   * delivered, comes back to it). A full recover (no `instanceIds`) then deletes the buffered messages that
   * have expired: after the restores, so that none an instance took in time is dropped before it is
   * delivered. `onProgress` is told after each batch how many instances were tried, of how many.
   */
  async recover(
    options: { instanceIds?: string[]; onProgress?: (tried: number, total: number) => void } = {},
  ): Promise<RecoverReport> {
    this.assertOpen();
    return recoverInstances(this.parts, options.instanceIds, options.onProgress);
  }

  /**
   * Roll an instance whose head cannot be opened (a corrupt document, an unknown schema, an unreadable
   * journal) back to checkpoint `to`: its state is written again as the new head, the bad checkpoints stay as
   * history. Refused (`RollbackRefusedError`) when that would forget what the instance durably did after
   * `to`. Not while this engine runs the instance; `recover` it afterwards.
   */
  async rollback(instanceId: string, options: { to: number }): Promise<RollbackResult> {
    this.assertOpen();
    if (this.parts.instances.has(instanceId)) {
      throw new InvalidStateError(`instance ${instanceId} is running in this engine; it has a good head to run from`);
    }
    // Under the instance's lease, like every write: a crashed engine's is taken over, a live one's refused.
    const held = await this.parts.leases.claimOne(instanceId);
    if (held !== true && held) throw new InstanceHeldError(instanceId, held.owner, held.expiresAt);
    try {
      const fence = held ? await this.parts.leases.fence(instanceId) : undefined;
      return await rollback(this.parts.repository, instanceId, options.to, this.parts.clock.now(), fence);
    } finally {
      await this.parts.leases.release(instanceId).catch(() => {});
    }
  }

  /** The newest checkpoint of an instance that opens, with its journal: where `rollback` can go. */
  latestGoodSeq(instanceId: string): Promise<number | undefined> {
    return latestGoodSeq(this.parts.repository, instanceId);
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
    const worker = startEngineWorker(this.parts, options);
    this.workers.push(worker);
    return worker;
  }

  /** Subscribe to engine events (`'*'` for all). Returns the unsubscribe function. */
  on<T extends EngineEventType | '*'>(type: T, listener: EngineListener<T>): () => void {
    this.parts.emitter.on(type, listener as (event: EngineEvent) => void);
    return () => this.parts.emitter.off(type, listener as (event: EngineEvent) => void);
  }

  /**
   * Called when an instance's loop stopped because a write or a delivery failed (the instance is dropped from
   * memory, its lease left to lapse), and when an `on` listener threw (`EventListenerError`; the loop ran on).
   */
  onFault(listener: (fault: { instanceId: string; error: Error }) => void): () => void {
    this.parts.emitter.on('fault', listener);
    return () => this.parts.emitter.off('fault', listener);
  }

  /** Stop every loop after its current write. Handlers still running finish unheard; nothing durable is lost. */
  async close(): Promise<void> {
    if (this.parts.flags.closed) return;
    this.parts.flags.closed = true;
    clearInterval(this.parts.renewing);
    this.parts.sweep.stop();
    this.parts.duePoll.stop();
    await Promise.all(this.workers.map((worker) => worker.stop()));
    // Work under way (a job in flight, a delivery, a backoff) keeps its lease, to lapse: a worker then takes
    // it up, as it would from an engine that died. A parked instance is let go of at once.
    const busy = await this.parts.instances.stopAll();
    this.parts.loopHost.telemetry.closeAll();
    await this.parts.leases.releaseAll(busy);
    ownerGone(this.parts.leases.owner);
  }

  // ── internals ───────────────────────────────────────────────────────────────────────────────────────

  private assertOpen(): void {
    if (this.parts.flags.closed) throw closedError();
  }
}
