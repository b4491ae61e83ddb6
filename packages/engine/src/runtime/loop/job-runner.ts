import type { InstanceRecord, JobRecord } from '@thresher/checkpoint';
import type { Job } from '../base/types.js';
import { callHandler, hasHandler, type Outcome } from './job-calls.js';
import type { LoopHost } from './loop-host.js';

/** What the job runner asks of its instance's loop: the job to run, and where its outcome goes. */
export interface JobLoop {
  /** The job as its handler sees it, with its record; undefined once the loop stopped or the job is gone. */
  runnable(jobId: string): { job: JobRecord; view: Job; instance: InstanceRecord } | undefined;
  /** A handler's outcome, for the loop to apply as a step of its own, or to drop (stopped, job gone). */
  finished(jobId: string, outcome: Outcome): Promise<void>;
  /** A job is in the store's queue for outside workers, or could not be put there (`error`). */
  offered(taskType: string, error?: Error): void;
}

/**
 * Runs an instance's jobs: calls a job's handler once the step that recorded it is durable (after its
 * backoff, when it has one) and hands the outcome to the loop, which applies it as its next step. A job counts
 * as running until the loop took its outcome up (`taken`), so nothing dispatches it twice.
 */
export class JobRunner {
  /** Jobs whose handler is running, or whose outcome the loop has not taken up yet. */
  private readonly running = new Set<string>();
  /** Jobs waiting out a retry backoff, by clock handle. */
  private readonly backoffs = new Map<string, unknown>();
  /** Jobs queued for outside workers, by the attempt queued. */
  private readonly queued = new Map<string, number>();
  /** The store calls of the queue, one after another: a stale attempt leaves before the next is offered. */
  private queueCalls: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: Pick<LoopHost<unknown>, 'settings' | 'telemetry' | 'store'>,
    private readonly loop: JobLoop,
  ) {}

  /** Whether a handler is running or its outcome is on its way into the loop. */
  get busy(): boolean {
    return this.running.size > 0;
  }

  /** Whether any job of the instance is in the store's queue for outside workers. */
  get hasQueued(): boolean {
    return this.queued.size > 0;
  }

  /** Jobs waiting out a retry backoff. */
  backingOff(): Iterable<string> {
    return this.backoffs.keys();
  }

  get hasBackoffs(): boolean {
    return this.backoffs.size > 0;
  }

  /** Cancel every backoff: the loop stopped. Handlers already running finish unheard. */
  halt(): void {
    for (const handle of this.backoffs.values()) this.host.settings.clock.clearTimeout(handle);
    this.backoffs.clear();
  }

  /** Call the job's handler, at once or after its backoff; a job already running or waiting is left as it is. */
  dispatch(jobId: string): void {
    const runnable = this.loop.runnable(jobId);
    if (!runnable || this.running.has(jobId) || this.backoffs.has(jobId)) return;
    const { job, view, instance } = runnable;
    const { clock, handlers, externalJobs } = this.host.settings;
    if (externalJobs && !hasHandler(handlers, job.taskType)) return this.offer(instance.id, job);
    const delay = job.notBefore === null ? 0 : job.notBefore - clock.now();
    if (delay > 0) {
      const handle = clock.setTimeout(() => {
        this.backoffs.delete(jobId);
        this.dispatch(jobId);
      }, delay);
      this.backoffs.set(jobId, handle);
      return;
    }
    this.running.add(jobId);
    // Its `job.dispatched` was stored and published with the step that made the job.
    // The handler runs after this step's effects have all been started, never inside them. It is looked
    // up then: one registered later with engine.handle() runs on the next dispatch.
    Promise.resolve()
      .then(() =>
        this.host.telemetry.runJob(instance, job, view.attempt, (traceContext) =>
          callHandler(handlers, traceContext === undefined ? view : { ...view, traceContext }),
        ),
      )
      .then((outcome) => this.loop.finished(jobId, outcome))
      .catch(() => {}); // faults are reported through the residency's fault and settled()
  }

  /**
   * Queue a job for outside workers (its backoff is the store's to wait out). It counts as running until the
   * store has it: the instance is not parked before a worker can find its job.
   */
  private offer(instanceId: string, job: JobRecord): void {
    const attempt = job.failures + 1;
    if (this.queued.get(job.id) === attempt) return;
    this.queued.set(job.id, attempt);
    this.running.add(job.id);
    const offer = { instanceId, jobId: job.id, type: job.taskType, attempt, notBefore: job.notBefore };
    const call = this.queueCalls.then(() => this.host.store.offerJob(offer));
    this.queueCalls = call.catch(() => {});
    call.then(
      () => {
        this.running.delete(job.id);
        this.loop.offered(job.taskType);
      },
      (error: unknown) => {
        this.running.delete(job.id);
        this.loop.offered(job.taskType, error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  /**
   * Take out of the store's queue every job the instance no longer waits on at the attempt queued (completed,
   * failed into a retry or an incident, cancelled), before a step's new dispatches queue their attempts.
   * `owes` tells whether the instance waits on an attempt of a job. A withdrawal that fails leaves an entry
   * activation finds stale and skips.
   */
  withdrawStale(instanceId: string, owes: (jobId: string, attempt: number) => boolean): void {
    for (const [jobId, attempt] of this.queued) {
      if (owes(jobId, attempt)) continue;
      this.queued.delete(jobId);
      const call = this.queueCalls.then(() => this.host.store.withdrawJob(instanceId, jobId));
      this.queueCalls = call.catch(() => {});
    }
  }

  /** The loop took the job's outcome up (applied it, or dropped it): it may be dispatched again. */
  taken(jobId: string): void {
    this.running.delete(jobId);
  }
}
