/**
 * The job workers of a `via: api` fixture run: one per task type its scripts cover, long-polling
 * `POST /v2/jobs/activation` as a Camunda worker does and answering each job as its script says — fail its first
 * `fail` attempts (retries one fewer, no back-off), then throw its BPMN error or complete it with its result.
 * A job's attempt is told by its retries: only this run's failures lower them.
 */
import type { Fixture, HandlerScript } from '@thresher/testing';
import { type ApiClient, sleep } from './served.js';

/** The lock a worker asks for: longer than any kill and restart, so a job handed out is never handed out twice. */
const LOCK_MS = 30_000;
/** How long an activation waits for a job. */
const POLL_MS = 500;

/** A job as an activation hands it out (the fields the workers read). */
interface ActivatedJob {
  jobKey: string;
  type: string;
  elementId: string;
  retries: number;
}

export class JobWorkers {
  /** Every call the workers made, by `type|jobKey|attempt`: its element, and how often (repeated after a kill or not). */
  readonly calls = new Map<string, { element: string; count: number }>();
  readonly #firstRetries = new Map<string, number>();
  readonly #running: Promise<void>[];
  #stopped = false;
  /** What stopped a worker, when one stopped on its own (an answer no worker expects). */
  failure: Error | undefined;

  constructor(
    private readonly fixture: Fixture,
    private readonly client: ApiClient,
  ) {
    const types = new Set([
      ...Object.keys(fixture.handlers),
      ...Object.values(fixture.elementHandlers).map(({ taskType }) => taskType),
    ]);
    this.#running = [...types].map((type) =>
      this.#poll(type).catch((error: Error) => {
        this.failure ??= error;
        this.#stopped = true;
      }),
    );
  }

  /** Stop polling; resolves once every worker has answered the jobs it holds. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running);
  }

  async #poll(type: string): Promise<void> {
    while (!this.#stopped) {
      const answer = await this.client.expect(
        'POST',
        '/jobs/activation',
        { type, worker: 'thresher-fixture', timeout: LOCK_MS, maxJobsToActivate: 8, requestTimeout: POLL_MS },
        [200],
      );
      const { jobs } = answer.body as { jobs: ActivatedJob[] };
      for (const job of jobs) await this.#answer(job);
      if (jobs.length === 0) await sleep(1);
    }
  }

  async #answer(job: ActivatedJob): Promise<void> {
    const script = this.#scriptOf(job);
    const first = this.#firstRetries.get(job.jobKey) ?? job.retries;
    this.#firstRetries.set(job.jobKey, first);
    const attempt = first - job.retries + 1;
    const call = `${job.type}|${job.jobKey}|${attempt}`;
    const made = this.calls.get(call) ?? { element: job.elementId, count: 0 };
    made.count++;
    this.calls.set(call, made);
    const path = `/jobs/${job.jobKey}`;
    // Made again after a kill, a call the first made may find the job gone (404) or failed already (409).
    if (attempt <= script.fail) {
      const failure = { retries: job.retries - 1, errorMessage: script.failMessage, retryBackOff: 0 };
      await this.client.expect('POST', `${path}/failure`, failure, [204], [404, 409]);
    } else if (script.bpmnError !== null) {
      await this.client.expect('POST', `${path}/error`, { errorCode: script.bpmnError }, [204], [404, 409]);
    } else {
      await this.client.expect('POST', `${path}/completion`, { variables: script.result }, [204], [404, 409]);
    }
  }

  #scriptOf(job: ActivatedJob): HandlerScript {
    const script = this.fixture.elementHandlers[job.elementId]?.script ?? this.fixture.handlers[job.type];
    if (script === undefined) throw new Error(`no script for job type "${job.type}" at "${job.elementId}"`);
    return script;
  }

  /** Handler runs by task type, each (job, attempt) once. */
  runs(): Record<string, number> {
    const runs: Record<string, number> = {};
    for (const call of this.calls.keys()) {
      const type = call.slice(0, call.indexOf('|'));
      runs[type] = (runs[type] ?? 0) + 1;
    }
    return runs;
  }
}
