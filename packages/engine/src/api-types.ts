/**
 * What the Engine is made with and started with: its options, a start's options, a user-task filter. The types
 * of its results live where they are made (the runtime's views, the events); `index.ts` names every one.
 *
 * @module
 */
import type { Repository } from '@thresher/checkpoint';
import type { Clock } from './common/clock.js';
import type { Handlers } from './runtime/base/types.js';
import type { RetentionOptions } from './runtime/document/retention.js';

export interface EngineOptions {
  repository: Repository;
  handlers?: Handlers;
  clock?: Clock;
  /** Default handler retries when the task does not say (`zeebe:taskDefinition retries`). Default 3. */
  retries?: number;
  /** Backoff before retry n (1-based) in ms. Default: 1000 · 2^(n−1), capped at 60 s. */
  backoff?: (failure: number) => number;
  /** `strict` (default): every persist point is durable before any effect it records leaves the engine. */
  durability?: 'strict';
  /**
   * Names this engine in the leases it holds; unique among engines alive at once on one store. Default
   * `<host>:<pid>:<nonce>`, which lets an engine of this host take over the leases of a process that
   * exited at once instead of waiting them out.
   */
  owner?: string;
  /**
   * How long a lease on an instance lasts without renewal, in ms (default 30 000). The engine renews its
   * leases every third of this; an engine that stops renewing (killed, paused, cut off) loses its
   * instances to another engine after it, and its late writes are refused.
   */
  leaseTtlMs?: number;
  /**
   * Let go of an instance once it is parked (it waits only on a user task, a message, a signal, a called
   * child or a BPMN timer, with no handler running and no retry backoff): it leaves memory and its lease is
   * released, and its next event (a completion, a message, a signal, a child's end, a due timer found
   * through the store's index) restores it. Memory then grows with the instances at work, not with the
   * parked ones, and another engine on the store may take the instance's next event. Default false: every
   * instance this engine loaded stays in memory, and `userTasks()` lists them all.
   */
  dehydrate?: boolean;
  /**
   * How many element moves (an element entered or left) one run of an instance may make without reaching a
   * wait — a user task, a job, a timer, a message — before its tracks stop with a `step-limit` incident
   * (`retryIncident` lets them run that many more). A model that loops without waiting stops there instead
   * of running for ever. Default 100 000. Whatever the limit, a long run yields to other instances every
   * thousand moves (a persist point of its own), so no instance holds the engine.
   */
  stepLimit?: number;
  /**
   * How many times an element may be entered in one activation of its scope before the engine warns that the
   * instance loops there (`element.looping`, the `thresher.element.looping` metric, `thresher show`): a warning,
   * not an incident, as a loop that waits each turn (a poll, a retry, a reminder) may be meant to run for ever.
   * Published once past it, then each time the count doubles. Default 1,000.
   */
  loopWarning?: number;
  /**
   * What the store keeps as instances run and after they end: each instance's latest 10 checkpoints (older ones
   * go in the put that writes a new one), and ended instances for ever, unless `ended` says how long. The log
   * (what each step did: the history and the events) is kept while its instance is.
   */
  retention?: RetentionOptions;
  /**
   * A job whose type has no handler waits for a worker outside the engine instead of failing into an incident:
   * it is queued in the repository, where `activateJobs` (on any engine sharing the store) locks it for a
   * worker, and `completeJob`, `failJob`, `throwJobError` bring the worker's outcome back, as Zeebe's job workers
   * do. Default false.
   */
  externalJobs?: boolean;
}

export interface UserTaskFilter {
  instanceId?: string;
  elementId?: string;
}
