import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { parsePortFlag, storeFlags } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { withSession } from '../session.js';
import { describeStore } from '../store.js';

export const serveSpec = commandSpec({
  name: 'serve',
  usage: 'thresher serve [--store URL] [--host HOST] [--port N] [--handlers MODULE] [--ui] [--json]',
  summary:
    "serve Camunda 8.8's REST API (/v2) on a store, running its instances, for Camunda's clients and job workers; until SIGTERM or SIGINT",
  positionals: [],
  options: {
    ...storeFlags.options,
    host: {
      type: 'string',
      placeholder: 'HOST',
      description:
        'the interface to listen on (default 127.0.0.1: this machine only, the one it takes until it authenticates callers)',
    },
    port: {
      type: 'string',
      placeholder: 'N',
      description: "the port (default 8080, Camunda's; 0: a free one, printed)",
    },
    handlers: {
      type: 'string',
      placeholder: 'MODULE',
      description: 'an ES module handling service tasks by type in this process',
    },
    ui: { type: 'boolean', description: 'serve the web view too, under /ui' },
  },
  examples: ['thresher serve', 'thresher serve --store postgres://localhost/app --port 8088 --ui'],
});

const usage = serveSpec.usage;

export interface ServeArgs {
  store: string | undefined;
  json: boolean;
  host: string;
  port: number;
  handlers: string | undefined;
  ui: boolean;
}

export function parseServeArgs(argv: readonly string[]): Parsed<ServeArgs> {
  return parseWith(serveSpec, argv, ({ values }) => {
    const port = parsePortFlag(text(values, 'port') ?? '8080', usage);
    return {
      ...storeFlags.read(values, usage),
      host: text(values, 'host') ?? '127.0.0.1',
      port,
      handlers: text(values, 'handlers'),
      ui: flag(values, 'ui'),
    };
  });
}

/**
 * `thresher serve`: one process serving the API (and the web view with `--ui`), its engine running the store's
 * instances with their leases. SIGTERM or SIGINT stops listening, answers the requests under way, then closes the
 * engine after its current writes.
 */
export const serveCommand = defineCommand(serveSpec, parseServeArgs, async (args, { io, out }) => {
  // Loaded on use, not when `thresher` starts.
  const { isLoopback, PinnableClock, SearchProjection, startCamundaRestServer } = await import('@thresher/rest');
  if (!isLoopback(args.host)) {
    throw new UsageError(
      `option --host ${args.host}: the API would let that network drive every instance, and thresher serve authenticates no caller yet: listen on 127.0.0.1`,
      usage,
    );
  }
  const clock = new PinnableClock();
  const options = { store: args.store, handlers: args.handlers, create: true, usage, clock, externalJobs: true };
  return withSession(io, out, options, async (session) => {
    if (!io.onStop) throw new UsageError('this CLI cannot be asked to stop, so it cannot serve', usage);
    // A worker, as `thresher worker` runs: due timers, instances left behind and messages handed over are run here.
    const worker = session.engine.startWorker({});
    // What the searches read: the event log projected into the same store, kept from here on.
    const projection = new SearchProjection(session.engine, session.repository, {
      onError: (error) =>
        out.progress(`thresher serve: the search projection failed a pass (it tries again): ${String(error)}`),
    });
    const mounts = [];
    let closeUi = (): void => {};
    if (args.ui) {
      const { createUiHandler } = await import('@thresher/ui');
      const ui = createUiHandler(session.engine, { basePath: '/ui' });
      closeUi = () => ui.close();
      mounts.push({ path: '/ui', handler: ui });
    }
    let server: Awaited<ReturnType<typeof startCamundaRestServer>>;
    try {
      server = await startCamundaRestServer({
        engine: session.engine,
        clock,
        projection,
        host: args.host,
        port: args.port,
        mounts,
      });
    } catch (error) {
      await projection.close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new FailedError(
          `port ${args.port} on ${args.host} is in use: choose another with --port, or 0 for a free one`,
        );
      }
      throw error;
    }
    out.print(`thresher serve: ${server.url}${args.ui ? ` (web view: ${server.url.replace(/\/v2$/, '/ui/')})` : ''}`);
    out.progress(`serving ${describeStore(session.store)}; SIGTERM or SIGINT stops it`);
    out.document({ url: server.url, ...(args.ui ? { ui: server.url.replace(/\/v2$/, '/ui/') } : {}) });
    const signal = await new Promise<string>((resolveStop) => io.onStop?.(resolveStop));
    out.progress(`thresher serve: ${signal}, stopping`);
    closeUi();
    await server.close();
    await projection.close();
    await worker.stop();
    return ExitCode.Ok;
  });
});
