import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { commandSpec, flag, list, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { parseDurationFlag, parsePortFlag, storeFlags } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { withSession } from '../session.js';
import { describeStore } from '../store.js';

export const uiSpec = commandSpec({
  name: 'ui',
  usage:
    'thresher ui [--store URL] [--host HOST] [--port N] [--token TOKEN] [--read-only] [--handlers MODULE] [--form FILE]... [--poll DURATION] [--json]',
  summary:
    'serve the web view of a store: processes and instances on their diagrams, live, with actions; until SIGTERM or SIGINT',
  positionals: [],
  options: {
    ...storeFlags.options,
    host: {
      type: 'string',
      placeholder: 'HOST',
      description: 'the interface to listen on (default 127.0.0.1: this machine only; any other needs --token)',
    },
    port: { type: 'string', placeholder: 'N', description: 'the port (default 0: a free one, printed)' },
    token: {
      type: 'string',
      placeholder: 'TOKEN',
      description:
        'an access token every request must carry (default $THRESHER_UI_TOKEN); open the view with ?token=TOKEN once',
    },
    'read-only': { type: 'boolean', description: 'show no actions and refuse every POST' },
    handlers: {
      type: 'string',
      placeholder: 'MODULE',
      description:
        "an ES module handling service tasks by type (your workers' module): an instance the view acts on runs here until it waits, then leaves this process",
    },
    form: {
      type: 'string',
      multiple: true,
      placeholder: 'FILE',
      description: 'a Camunda Form (.form JSON) user tasks link by its id (zeebe:formDefinition formId)',
    },
    poll: {
      type: 'string',
      placeholder: 'DURATION',
      description: 'how often open pages look at the store for changes (ISO 8601; default PT1S)',
    },
  },
  examples: [
    'thresher ui',
    'thresher ui --store postgres://localhost/app --read-only',
    'THRESHER_UI_TOKEN=s3cret thresher ui --host 0.0.0.0 --port 8080 --form forms/review.form',
  ],
});

const usage = uiSpec.usage;

/** `thresher ui`, parsed (`token` from the flag; the command falls back to THRESHER_UI_TOKEN). */
export interface UiArgs {
  store: string | undefined;
  json: boolean;
  host: string;
  port: number;
  token: string | undefined;
  readOnly: boolean;
  handlers: string | undefined;
  forms: string[];
  pollMs: number;
}

export function parseUiArgs(argv: readonly string[]): Parsed<UiArgs> {
  return parseWith(uiSpec, argv, ({ values }) => {
    const port = parsePortFlag(text(values, 'port') ?? '0', usage);
    const token = text(values, 'token');
    if (token === '') throw new UsageError('option --token: an empty token protects nothing', usage);
    const pollMs = parseDurationFlag('--poll', text(values, 'poll') ?? 'PT1S', usage);
    if (pollMs < 50) throw new UsageError('option --poll: must be at least 50 milliseconds', usage);
    return {
      ...storeFlags.read(values, usage),
      host: text(values, 'host') ?? '127.0.0.1',
      port,
      token,
      readOnly: flag(values, 'read-only'),
      handlers: text(values, 'handlers'),
      forms: list(values, 'form'),
      pollMs: Math.round(pollMs),
    };
  });
}

/** Linked forms by their id, read from `.form` files. */
async function readForms(files: readonly string[], cwd: string): Promise<Map<string, unknown>> {
  const forms = new Map<string, unknown>();
  for (const file of files) {
    let schema: unknown;
    try {
      schema = JSON.parse(await readFile(resolve(cwd, file), 'utf8'));
    } catch (error) {
      throw new UsageError(`option --form: ${file} is not a readable JSON file: ${(error as Error).message}`, usage);
    }
    const id = (schema as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') {
      throw new UsageError(`option --form: ${file} has no "id", which a user task's formId would name`, usage);
    }
    forms.set(id, schema);
  }
  return forms;
}

/**
 * `thresher ui`: the web view of the store, served until SIGTERM or SIGINT. Its engine only looks until an
 * action is taken: then it restores (and claims) the instance acted on, as any caller of the engine would, runs
 * it until it waits again, and lets it go (memory and lease), as a worker does.
 */
export const uiCommand = defineCommand(uiSpec, parseUiArgs, async (parsed, { io, out }) => {
  // Loaded on use, not when `thresher` starts.
  const { isLoopback, startUiServer, UiError } = await import('@thresher/ui');
  const args = { ...parsed, token: parsed.token ?? io.env.THRESHER_UI_TOKEN };
  if (!isLoopback(args.host) && args.token === undefined) {
    throw new UsageError(
      `option --host ${args.host}: the view would show every instance's variables to that network: give an access token (--token or THRESHER_UI_TOKEN), or listen on 127.0.0.1`,
      usage,
    );
  }
  const forms = await readForms(args.forms, io.cwd);
  // Dehydrating: an instance an action restored here leaves this process, and its lease, once it waits again.
  const options = { store: args.store, handlers: args.handlers, create: true, usage, dehydrate: true };
  return withSession(io, out, options, async (session) => {
    if (!io.onStop) throw new UsageError('this CLI cannot be asked to stop, so it cannot serve the view', usage);
    // The task list and the incidents across instances read the search projection the Camunda API keeps; so does this view.
    const { BatchList, BatchRunner, IncidentList, SearchProjection, TaskList } = await import('@thresher/rest');
    const projection = new SearchProjection(session.engine, session.repository, {
      onError: (error) =>
        out.progress(`thresher ui: the search projection failed a pass (it tries again): ${String(error)}`),
    });
    // The batch operations the view makes (a group of incidents retried), and any other on the store.
    const batches = new BatchRunner(session.engine, session.repository, {
      owner: session.engine.owner,
      onError: (error) =>
        out.progress(`thresher ui: a batch operation failed a pass (it tries again): ${String(error)}`),
    });
    if (!args.readOnly) batches.start();
    let server: Awaited<ReturnType<typeof startUiServer>>;
    try {
      server = await startUiServer({
        engine: session.engine,
        tasks: new TaskList(session.engine, projection),
        incidents: new IncidentList(session.engine, projection),
        batchList: new BatchList(session.engine, projection),
        batches,
        host: args.host,
        port: args.port,
        readOnly: args.readOnly,
        forms,
        live: 'poll',
        pollMs: args.pollMs,
        ...(args.token === undefined ? {} : { token: args.token }),
      });
    } catch (error) {
      await batches.close();
      await projection.close();
      if (error instanceof UiError) throw new FailedError(error.message);
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new FailedError(
          `port ${args.port} on ${args.host} is in use: choose another with --port, or 0 for a free one`,
        );
      }
      throw error;
    }
    out.print(
      `thresher ui: ${server.url}${args.token === undefined ? '' : ' (open it once with ?token=<your token>)'}`,
    );
    out.progress(
      `serving ${describeStore(session.store)}${args.readOnly ? ', read-only' : ''}; SIGTERM or SIGINT stops it`,
    );
    out.document({ url: server.url, readOnly: args.readOnly });
    const signal = await new Promise<string>((resolveStop) => io.onStop?.(resolveStop));
    out.progress(`thresher ui: ${signal}, stopping`);
    await server.close();
    await batches.close();
    await projection.close();
    return ExitCode.Ok;
  });
});
