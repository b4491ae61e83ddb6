import {
  encodeJournalEntry,
  type JournalEntry,
  type PendingWrite,
  resultReceipt,
  type Variables,
} from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef } from '../../model/types.js';
import type { Telemetry } from '../base/telemetry.js';
import type { Handlers } from '../base/types.js';
import { callHandler, jobView, type Outcome } from './job-calls.js';

/** What the job runner uses of its instance's loop. */
export interface JobLoop {
  readonly process: ProcessDef;
  readonly clock: Clock;
  /** Looked up at each dispatch: a handler registered later runs on the next one. */
  readonly handlers: Handlers;
  /** Each handler call runs inside its job's span. */
  readonly telemetry: Telemetry;
  /** File a journal entry against the checkpoint at `seq`, under the instance's lease. */
  journal(seq: number, write: PendingWrite): Promise<void>;
  state(): InstanceState;
  /** The seq of the latest durable checkpoint; null before the first. */
  seq(): number | null;
  /** Whether the loop stopped (closed, abandoned or retired): it takes no result and dispatches nothing. */
  stopped(): boolean;
  /** Steps queued or under way in the loop. */
  queued(): number;
  /** Queue work on the loop, after what is queued. */
  enqueue(work: () => Promise<void>): Promise<void>;
  /** Apply events as one step, make it durable, perform its effects (inside queued work). */
  advance(events: InstanceEvent[]): Promise<void>;
  /** A write the loop makes: a failure stops the loop for good. */
  durably<T>(write: () => Promise<T>): Promise<T>;
  /** Tell `settled` waiters something changed. */
  notifySettled(): void;
}

/**
 * Runs an instance's jobs: calls a job's handler once the step that recorded it is durable (after its
 * backoff, when it has one), and applies the outcome as the loop's next step. A result that arrives while
 * the loop is busy is journaled first, so a kill before its step lands does not run the handler again.
 */
export class JobRunner {
  /** Jobs whose handler is running, or whose outcome the loop has not applied yet. */
  private readonly running = new Set<string>();
  /** Jobs waiting out a retry backoff, by clock handle. */
  private readonly backoffs = new Map<string, unknown>();

  constructor(private readonly loop: JobLoop) {}

  /** Whether a handler is running or its outcome is on its way into the loop. */
  get busy(): boolean {
    return this.running.size > 0;
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
    for (const handle of this.backoffs.values()) this.loop.clock.clearTimeout(handle);
    this.backoffs.clear();
  }

  /** Call the job's handler, at once or after its backoff; a job already running or waiting is left as it is. */
  dispatch(jobId: string): void {
    const { loop } = this;
    const job = loop.state().jobs.get(jobId);
    if (!job || loop.stopped() || this.running.has(jobId) || this.backoffs.has(jobId)) return;
    const { clock, handlers } = loop;
    const delay = job.notBefore === null ? 0 : job.notBefore - clock.now();
    if (delay > 0) {
      const handle = clock.setTimeout(() => {
        this.backoffs.delete(jobId);
        this.dispatch(jobId);
      }, delay);
      this.backoffs.set(jobId, handle);
      return;
    }
    const view = jobView(loop.state(), loop.process, job);
    this.running.add(jobId);
    // Its `job.dispatched` was stored and published with the step that made the job.
    // The handler runs after this step's effects have all been started, never inside them. It is looked
    // up then: one registered later with engine.handle() runs on the next dispatch.
    const instance = loop.state().instance;
    Promise.resolve()
      .then(() =>
        loop.telemetry.runJob(instance, job, view.attempt, (traceContext) =>
          callHandler(handlers, traceContext === undefined ? view : { ...view, traceContext }),
        ),
      )
      .then((outcome) => this.settle(jobId, outcome));
  }

  private settle(jobId: string, outcome: Outcome): void {
    const { loop } = this;
    // A stopped loop, or a job cancelled meanwhile (terminate), takes no result.
    if (loop.stopped() || !loop.state().jobs.has(jobId)) {
      this.running.delete(jobId);
      return loop.notifySettled();
    }
    // The job counts as running until the loop has applied its outcome: nothing can dispatch it twice.
    const work =
      'result' in outcome
        ? this.complete(jobId, outcome.result)
        : loop.enqueue(() => {
            this.running.delete(jobId);
            const { error, retryable, errorCode } = outcome;
            return loop.advance([
              { type: 'job.failed', jobId, error, retryable, ...(errorCode === undefined ? {} : { errorCode }) },
            ]);
          });
    work.catch(() => {}); // faults are reported through the residency's fault and settled()
  }

  /**
   * Apply a job's result. With nothing else waiting for the loop, the checkpoint that applies it is the
   * next write, at once: it alone makes the result durable (a kill before it runs the handler again, as a
   * kill before the journal entry did). Behind other work, the result is journaled first, as always.
   */
  private complete(jobId: string, result: Variables): Promise<void> {
    const { loop } = this;
    const busy = loop.queued() > 0;
    return loop.enqueue(async () => {
      this.running.delete(jobId);
      const job = loop.state().jobs.get(jobId);
      const seq = loop.seq();
      if (!job || seq === null) return;
      if (busy || loop.queued() !== 1) {
        const entry: JournalEntry = { jobId, result, receipt: resultReceipt(job.identity, result) };
        const write = { taskId: jobId, index: 0, value: encodeJournalEntry(entry) };
        await loop.durably(() => loop.journal(seq, write));
      }
      await loop.advance([{ type: 'job.completed', jobId, result }]);
    });
  }
}
