import type { WorkerCounts } from '@thresher/engine';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { otelOption, parseDurationFlag, storeFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { withSession } from '../session.js';

export const workerSpec = commandSpec({
  name: 'worker',
  usage:
    'thresher worker [--handlers MODULE] [--store URL] [--concurrency N] [--poll DURATION] [--report DURATION] [--lease-ttl DURATION] [--otel] [--json]',
  summary:
    'run instances from the store until SIGTERM or SIGINT: work other workers left behind, due timers, and the next event of parked instances',
  positionals: [],
  options: {
    handlers: {
      type: 'string',
      placeholder: 'MODULE',
      description: 'an ES module whose exports (default object or named functions) handle service tasks by task type',
    },
    ...storeFlags.options,
    otel: otelOption,
    concurrency: {
      type: 'string',
      placeholder: 'N',
      description: 'at most N instances at work in this worker at once (default 16)',
    },
    poll: {
      type: 'string',
      placeholder: 'DURATION',
      description: 'how often an idle worker looks at the store for work (ISO 8601; default PT1S)',
    },
    report: {
      type: 'string',
      placeholder: 'DURATION',
      description: 'print the counts of what the worker did this often (ISO 8601; default PT10S)',
    },
    'lease-ttl': {
      type: 'string',
      placeholder: 'DURATION',
      description:
        "how long an instance stays this worker's without renewal: after it, a worker that stopped (killed, paused) loses its instances to the others (ISO 8601; default PT30S)",
    },
  },
  examples: [
    'thresher worker --store postgres://localhost/app --handlers handlers.mjs',
    'thresher worker --store app.db --handlers handlers.mjs --concurrency 4 --poll PT0.2S',
  ],
});

const usage = workerSpec.usage;

/** `thresher worker`, parsed. */
export interface WorkerArgs {
  store: string | undefined;
  handlers: string | undefined;
  json: boolean;
  concurrency: number;
  pollMs: number;
  reportMs: number;
  leaseTtlMs: number;
  otel: boolean;
}

/** Parses `thresher worker` arguments. */
export function parseWorkerArgs(argv: readonly string[]): Parsed<WorkerArgs> {
  return parseWith(workerSpec, argv, ({ values }) => {
    const concurrency = text(values, 'concurrency') ?? '16';
    if (!/^[1-9]\d{0,5}$/.test(concurrency)) {
      throw new UsageError(
        `option --concurrency: expected a positive whole number, got ${JSON.stringify(concurrency)}`,
        usage,
      );
    }
    const pollMs = parseDurationFlag('--poll', text(values, 'poll') ?? 'PT1S', usage);
    const reportMs = parseDurationFlag('--report', text(values, 'report') ?? 'PT10S', usage);
    const leaseTtlMs = parseDurationFlag('--lease-ttl', text(values, 'lease-ttl') ?? 'PT30S', usage);
    for (const [name, ms] of [
      ['--poll', pollMs],
      ['--report', reportMs],
      ['--lease-ttl', leaseTtlMs],
    ] as const) {
      if (ms < 1) throw new UsageError(`option ${name}: must be at least a millisecond`, usage);
    }
    return {
      ...storeFlags.read(values, usage),
      handlers: text(values, 'handlers'),
      concurrency: Number(concurrency),
      pollMs: Math.round(pollMs),
      reportMs: Math.round(reportMs),
      leaseTtlMs: Math.round(leaseTtlMs),
      otel: flag(values, 'otel'),
    };
  });
}

const KEYS = ['claimed', 'completed', 'released', 'lost', 'failed'] as const;

/** What changed since the last report, by count: the fields of a worker's log line. */
function countsDelta(now: WorkerCounts, before: WorkerCounts): Record<(typeof KEYS)[number], number> {
  return Object.fromEntries(KEYS.map((key) => [key, now[key] - before[key]])) as Record<(typeof KEYS)[number], number>;
}

function countsLine(owner: string, now: WorkerCounts, before: WorkerCounts): string {
  const changes = KEYS.map((key) => `${key} +${now[key] - before[key]}`).join(', ');
  return `worker ${owner}: ${changes} (${now.atWork} at work)`;
}

/**
 * `thresher worker`: an engine that runs instances from the store until the process is asked to stop
 * (SIGTERM, SIGINT): it takes up work other workers left behind, instances whose timer is due, and the next
 * event of parked instances (which leave its memory), printing its counts every `--report`. On the signal it
 * stops looking for work, lets its current writes finish and exits 0; handlers still running finish unheard
 * and their jobs are taken up by another worker once this one's leases lapse.
 */
export const workerCommand = defineCommand(workerSpec, parseWorkerArgs, async (args, { io, out }) => {
  const options = {
    store: args.store,
    handlers: args.handlers,
    create: true,
    usage,
    leaseTtlMs: args.leaseTtlMs,
    otel: args.otel,
  };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    const worker = engine.startWorker({ concurrency: args.concurrency, pollMs: args.pollMs });
    out.progress(`worker ${engine.owner} started (concurrency ${args.concurrency}); SIGTERM or SIGINT stops it`, {
      owner: engine.owner,
      concurrency: args.concurrency,
    });
    let last = worker.counts;
    let handle: unknown;
    const report = (): void => {
      const now = worker.counts;
      if (KEYS.some((key) => now[key] !== last[key])) {
        out.progress(countsLine(engine.owner, now, last), {
          owner: engine.owner,
          ...countsDelta(now, last),
          atWork: now.atWork,
        });
      }
      last = now;
      handle = io.clock.setTimeout(report, args.reportMs);
    };
    handle = io.clock.setTimeout(report, args.reportMs);
    const signal = await new Promise<string>((resolve) => {
      if (!io.onStop) throw new UsageError('this CLI cannot be asked to stop, so it cannot run a worker', usage);
      io.onStop(resolve);
    });
    io.clock.clearTimeout(handle);
    out.progress(`worker ${engine.owner}: ${signal}, stopping after the current writes`, {
      owner: engine.owner,
      signal,
    });
    await worker.stop();
    const totals = worker.counts;
    out.print(`worker ${engine.owner} stopped: ${KEYS.map((key) => `${key} ${totals[key]}`).join(', ')}`);
    out.document({ owner: engine.owner, counts: totals });
    return ExitCode.Ok;
  });
});
