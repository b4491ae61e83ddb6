import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { commandSpec, flag, type Parsed, type ParsedArgs, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { parseDurationFlag, parsePortFlag, storeFlags } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { LineReader } from '../io.js';
import { withSession } from '../session.js';
import { describeStore, type StoreSpec } from '../store.js';

export const serveSpec = commandSpec({
  name: 'serve',
  usage:
    'thresher serve [--store URL] [--host HOST] [--port N] [--lease-ttl DURATION] [--documents DIR] [--auth basic --users FILE | --auth bearer --issuer URL [--audience AUD] [--jwks URL]] [--handlers MODULE] [--ui] [--json]\n       thresher serve --hash-password < password',
  summary:
    "serve Camunda 8.8's REST API (/v2) on a store, running its instances, for Camunda's clients and job workers; until SIGTERM or SIGINT",
  positionals: [],
  options: {
    ...storeFlags.options,
    host: {
      type: 'string',
      placeholder: 'HOST',
      description: 'the interface to listen on (default 127.0.0.1: this machine only; any other needs --auth)',
    },
    auth: {
      type: 'string',
      placeholder: 'basic|bearer',
      description: 'who may call: HTTP Basic against --users, or JWTs of --issuer (default: anyone on loopback)',
    },
    users: {
      type: 'string',
      placeholder: 'FILE',
      description: 'with --auth basic: one "name:scrypt:<salt>:<key>" per line (from --hash-password)',
    },
    issuer: { type: 'string', placeholder: 'URL', description: 'with --auth bearer: the issuer tokens must name' },
    audience: { type: 'string', placeholder: 'AUD', description: 'with --auth bearer: the audience tokens must name' },
    jwks: {
      type: 'string',
      placeholder: 'URL',
      description: "with --auth bearer: the issuer's JWKS (default: found by OpenID discovery)",
    },
    'hash-password': {
      type: 'boolean',
      description: "print a users-file hash of the password on stdin's first line, and exit",
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
    'lease-ttl': {
      type: 'string',
      placeholder: 'DURATION',
      description:
        "how long an instance stays this server's without renewal: after it, another server on the store takes up those of one that stopped (ISO 8601; default PT30S)",
    },
    documents: {
      type: 'string',
      placeholder: 'DIR',
      description:
        "where uploaded documents are kept (default: documents/ beside a SQLite store's file, ./.thresher/documents for PostgreSQL, memory for memory:)",
    },
  },
  examples: [
    'thresher serve',
    'thresher serve --store postgres://localhost/app --port 8088 --ui',
    'thresher serve --host 0.0.0.0 --auth bearer --issuer https://login.example.com/realms/app --audience thresher',
  ],
});

const usage = serveSpec.usage;

/** Who may call the server. */
export type ServeAuth =
  | { kind: 'none' }
  | { kind: 'basic'; users: string }
  | { kind: 'bearer'; issuer: string; audience: string | undefined; jwks: string | undefined };

export interface ServeArgs {
  store: string | undefined;
  json: boolean;
  host: string;
  port: number;
  handlers: string | undefined;
  ui: boolean;
  auth: ServeAuth;
  hashPassword: boolean;
  documents: string | undefined;
  leaseTtlMs: number;
}

function readLeaseTtl(given: string | undefined): number {
  const ms = parseDurationFlag('--lease-ttl', given ?? 'PT30S', usage);
  if (ms < 1) throw new UsageError('option --lease-ttl: must be at least a millisecond', usage);
  return Math.round(ms);
}

function readAuth(values: ParsedArgs['values']): ServeAuth {
  const auth = text(values, 'auth');
  const users = text(values, 'users');
  const bearer = { issuer: text(values, 'issuer'), audience: text(values, 'audience'), jwks: text(values, 'jwks') };
  const given = (names: string[]) => names.filter((name) => text(values, name) !== undefined);
  if (auth === undefined || auth === 'none') {
    const stray = given(['users', 'issuer', 'audience', 'jwks']);
    if (stray.length > 0) throw new UsageError(`option --${stray[0]} needs --auth basic or --auth bearer`, usage);
    return { kind: 'none' };
  }
  if (auth === 'basic') {
    if (users === undefined) throw new UsageError('option --auth basic needs --users FILE', usage);
    const stray = given(['issuer', 'audience', 'jwks']);
    if (stray.length > 0) throw new UsageError(`option --${stray[0]} belongs to --auth bearer`, usage);
    return { kind: 'basic', users };
  }
  if (auth === 'bearer') {
    if (bearer.issuer === undefined) throw new UsageError('option --auth bearer needs --issuer URL', usage);
    if (users !== undefined) throw new UsageError('option --users belongs to --auth basic', usage);
    return { kind: 'bearer', issuer: bearer.issuer, audience: bearer.audience, jwks: bearer.jwks };
  }
  throw new UsageError(`option --auth ${auth}: not basic, bearer or none`, usage);
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
      auth: readAuth(values),
      hashPassword: flag(values, 'hash-password'),
      documents: text(values, 'documents'),
      leaseTtlMs: readLeaseTtl(text(values, 'lease-ttl')),
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
  const rest = await import('@thresher/rest');
  const {
    BatchList,
    BatchRunner,
    IncidentList,
    isLoopback,
    PinnableClock,
    SearchProjection,
    startCamundaRestServer,
    TaskList,
  } = rest;
  if (args.hashPassword) {
    const password = await new LineReader(io.stdin).next();
    if (!password) throw new UsageError('--hash-password reads the password from the first line of stdin', usage);
    out.print(await rest.hashPassword(password));
    return ExitCode.Ok;
  }
  if (!isLoopback(args.host) && args.auth.kind === 'none') {
    throw new UsageError(
      `option --host ${args.host}: the API would let that network drive every instance without asking who calls: give --auth basic or --auth bearer, or listen on 127.0.0.1`,
      usage,
    );
  }
  const authenticate = await authenticatorOf(args.auth, io.cwd);
  const clock = new PinnableClock();
  const options = {
    store: args.store,
    handlers: args.handlers,
    create: true,
    usage,
    clock,
    externalJobs: true,
    leaseTtlMs: args.leaseTtlMs,
  };
  return withSession(io, out, options, async (session) => {
    if (!io.onStop) throw new UsageError('this CLI cannot be asked to stop, so it cannot serve', usage);
    // A worker, as `thresher worker` runs: due timers, instances left behind and messages handed over are run here.
    const worker = session.engine.startWorker({});
    // What the searches read: the event log projected into the same store, kept from here on.
    const projection = new SearchProjection(session.engine, session.repository, {
      onError: (error) =>
        out.progress(`thresher serve: the search projection failed a pass (it tries again): ${String(error)}`),
    });
    // The batch operations in the store, this server's share of them: several servers on one store share a batch.
    const batches = new BatchRunner(session.engine, session.repository, {
      owner: session.engine.owner,
      // A batch item claimed by a server that died goes to another once its claim runs out, as an instance does.
      ...(args.leaseTtlMs === undefined ? {} : { claimTtlMs: args.leaseTtlMs }),
      onError: (error) =>
        out.progress(`thresher serve: a batch operation failed a pass (it tries again): ${String(error)}`),
    });
    batches.start();
    const mounts = [];
    let closeUi = (): void => {};
    if (args.ui) {
      const { createUiHandler } = await import('@thresher/ui');
      const ui = createUiHandler(session.engine, {
        basePath: '/ui',
        tasks: new TaskList(session.engine, projection),
        incidents: new IncidentList(session.engine, projection),
        batchList: new BatchList(session.engine, projection),
        batches,
      });
      closeUi = () => ui.close();
      mounts.push({ path: '/ui', handler: ui });
    }
    const documents = new rest.DocumentStore(documentsDir(args.documents, session.store, io.cwd));
    let server: Awaited<ReturnType<typeof startCamundaRestServer>>;
    try {
      server = await startCamundaRestServer({
        engine: session.engine,
        clock,
        projection,
        documents,
        batches,
        host: args.host,
        port: args.port,
        mounts,
        ...(authenticate === undefined ? {} : { authenticate }),
      });
    } catch (error) {
      await batches.close();
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
    if (args.ui && args.auth.kind === 'bearer') {
      out.progress(
        'thresher serve: the web view asks for the bearer token the API asks for, which a browser does not send by itself: put a proxy that adds it (an OAuth2 proxy, say) in front of /ui',
      );
    }
    out.document({ url: server.url, ...(args.ui ? { ui: server.url.replace(/\/v2$/, '/ui/') } : {}) });
    const signal = await new Promise<string>((resolveStop) => io.onStop?.(resolveStop));
    out.progress(`thresher serve: ${signal}, stopping`);
    closeUi();
    await server.close();
    await batches.close();
    await projection.close();
    await worker.stop();
    return ExitCode.Ok;
  });
});

/** The authenticator `--auth` asks for; a users file or issuer that cannot be read stops the start, saying why. */
async function authenticatorOf(auth: ServeAuth, cwd: string) {
  const { basicAuthenticator, bearerAuthenticator, readUsers } = await import('@thresher/rest');
  try {
    if (auth.kind === 'basic') {
      const path = resolve(cwd, auth.users);
      return basicAuthenticator(readUsers(await readFile(path, 'utf8'), path));
    }
    if (auth.kind === 'bearer') {
      return await bearerAuthenticator({
        issuer: auth.issuer,
        ...(auth.audience === undefined ? {} : { audience: auth.audience }),
        ...(auth.jwks === undefined ? {} : { jwksUrl: auth.jwks }),
      });
    }
  } catch (error) {
    throw new FailedError(`thresher serve: --auth ${auth.kind}: ${(error as Error).message}`);
  }
  return undefined;
}

/** Where documents are kept: `--documents`, else beside a SQLite file, in memory for `memory:`, else under .thresher. */
function documentsDir(given: string | undefined, store: StoreSpec, cwd: string): string | null {
  if (given !== undefined) return resolve(cwd, given);
  if (store.kind === 'memory') return null;
  return store.kind === 'sqlite' ? join(dirname(store.path), 'documents') : resolve(cwd, '.thresher', 'documents');
}
