/**
 * `createUiHandler(engine, options)`: the web view as a Node `(req, res)` handler, which an app mounts under a
 * path of its own (`basePath`) or `startUiServer` serves. Pages are rendered on the server from the engine's
 * read API; actions are POSTs through the engine's command API.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Engine, EngineError, NotFoundError } from '@thresher/engine';
import type { BatchList, BatchRunner, IncidentList, TaskList } from '@thresher/rest';
import { ACTIONS, type Fields, readFields } from './actions.js';
import { asset, isAssetName } from './assets.js';
import { UiError, UiErrorCode } from './errors.js';
import { type Html, html, toText } from './html.js';
import { Live, type LiveSource } from './live.js';
import { Models } from './models.js';
import { batchPage } from './pages/batch.js';
import { decisionPage, requirementsPage } from './pages/decision.js';
import { GROUPS_SUBJECT, incidentsPage } from './pages/incidents.js';
import { instancePage } from './pages/instance.js';
import { instancesPage, readFilters } from './pages/instances.js';
import { instanceHref, layout, type PageContext } from './pages/layout.js';
import { migrateSubject, runningOf } from './pages/migrate.js';
import { processPage } from './pages/process.js';
import { processesPage } from './pages/processes.js';
import type { LinkedForms } from './pages/task-article.js';
import { taskPage, tasksPage } from './pages/tasks.js';
import { ActionTokens, presentedToken, sameOrigin, sameSecret, TOKEN_COOKIE } from './security.js';

export interface UiOptions {
  /** Show no actions and refuse every POST. */
  readOnly?: boolean;
  /** The path the handler is mounted under (`/ops`); requests outside it are 404. Default: the root. */
  basePath?: string;
  /**
   * The task list `/tasks` reads: the open user tasks of every instance, as the Camunda API's search projection
   * keeps them (`new TaskList(engine, projection)` of `@thresher/rest`). Without it, the page says what it needs.
   */
  tasks?: TaskList;
  /**
   * The incidents `/incidents` reads: the open incidents of every instance, grouped, as the search projection keeps
   * them (`new IncidentList(engine, projection)` of `@thresher/rest`). Without it, the page says what it needs.
   */
  incidents?: IncidentList;
  /**
   * What runs the batch operations a group retry makes (`new BatchRunner(engine, repository)`, started), told when
   * one is made; without it, a runner elsewhere on the store does them.
   */
  batches?: Pick<BatchRunner, 'poke'>;
  /**
   * What the view's batch operations are made with (a process page's migration, an incident group's retry), and what
   * `/batches/:key` reads: `new BatchList(engine, projection)`. Without it the view offers neither.
   */
  batchList?: BatchList;
  /** Linked Camunda forms by form id (`zeebe:formDefinition formId`), for the user tasks that name one. */
  forms?: LinkedForms;
  /** An access token every request must carry (`Authorization: Bearer`, or once as `?token=`, then a cookie). */
  token?: string;
  /**
   * Where live updates come from: `events` (default), this engine's own events, for an engine that runs the
   * instances; `poll`, the store's index every `pollMs`, for one that only looks (`thresher ui`).
   */
  live?: LiveSource;
  /** How often `poll` reads the store, in ms. Default 1000. */
  pollMs?: number;
  /** Origins besides the request's own host that may post actions (a proxy's public address). */
  origins?: readonly string[];
  /** How many instances of a version the heat overlay and incident counts read, newest first. Default 500. */
  limit?: number;
  /** Told of every failure the view could not classify (a 500), which the page shows only by its class. Default: `console.error`. */
  onError?: (error: unknown) => void;
}

export interface UiHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends the live streams and stops listening to the engine. */
  close(): void;
}

const MAX_BODY = 1 << 20;
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // bpmn-js and form-js set style attributes on what they draw.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  // dmn-js's icon font is embedded in its stylesheet.
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join('; ');

export function createUiHandler(engine: Engine, options: UiOptions = {}): UiHandler {
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  if (base !== '' && !base.startsWith('/'))
    throw new RangeError(`basePath must start with "/", got "${options.basePath}"`);
  if (options.token !== undefined && options.token.length === 0) throw new RangeError('token must not be empty');
  const limit = options.limit ?? 500;
  const tokens = new ActionTokens();
  const models = new Models(engine);
  const live = new Live(engine, options.live ?? 'events', options.pollMs ?? 1000, limit);
  const ctx: PageContext = {
    base,
    readOnly: options.readOnly ?? false,
    actionToken: (instanceId) => tokens.issue(instanceId),
  };
  const forms = options.forms ?? new Map<string, unknown>();

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (path.startsWith('/actions/')) {
      if (method !== 'POST') throw new UiError(UiErrorCode.MethodNotAllowed, 'actions are POSTs');
      return act(req, res, decodeURIComponent(path.slice('/actions/'.length)));
    }
    if (method !== 'GET' && method !== 'HEAD')
      throw new UiError(UiErrorCode.MethodNotAllowed, `${method} is not taken here`);
    const parts = path
      .split('/')
      .filter((part) => part !== '')
      .map(decodeURIComponent);
    if (parts.length === 0) return send(res, 200, await processesPage(ctx, engine, models, limit));
    if (parts[0] === 'assets' && parts.length === 3) return sendAsset(res, parts[1] ?? '', parts[2] ?? '');
    if (parts[0] === 'events' && parts.length === 1)
      return live.serve(req, res, url.searchParams.get('subject') ?? 'all');
    if (parts[0] === 'processes' && parts.length === 3) {
      const version = Number(parts[2]);
      if (!Number.isSafeInteger(version) || version < 1)
        throw new UiError(UiErrorCode.NotFound, `no version "${parts[2]}"`);
      return send(res, 200, await processPage(ctx, engine, models, parts[1] ?? '', version, limit, url.searchParams));
    }
    if (parts[0] === 'incidents' && parts.length === 1) {
      return send(
        res,
        200,
        await incidentsPage(ctx, options.incidents, url.searchParams, options.batchList !== undefined),
      );
    }
    if (parts[0] === 'batches' && parts.length === 2) {
      return send(res, 200, await batchPage(ctx, options.batchList, parts[1] ?? ''));
    }
    if (parts[0] === 'tasks' && parts.length === 1) {
      return send(res, 200, await tasksPage(ctx, options.tasks, url.searchParams));
    }
    if (parts[0] === 'tasks' && parts.length === 2) {
      return send(res, 200, await taskPage(ctx, engine, models, forms, parts[1] ?? ''));
    }
    if (parts[0] === 'instances' && parts.length === 1) {
      return send(res, 200, await instancesPage(ctx, engine, readFilters(url.searchParams)));
    }
    if (parts[0] === 'instances' && parts.length === 4 && parts[2] === 'decisions') {
      return send(res, 200, await decisionPage(ctx, engine, parts[1] ?? '', parts[3] ?? ''));
    }
    if (parts[0] === 'decisions' && parts.length === 2) {
      return send(res, 200, await requirementsPage(ctx, engine, parts[1] ?? ''));
    }
    if (parts[0] === 'instances' && parts.length === 2) {
      const done = url.searchParams.get('done');
      const signed = done !== null && tokens.verify(`done\0${done}`, url.searchParams.get('sig'));
      const page = await instancePage(ctx, engine, models, forms, parts[1] ?? '', signed ? done : null);
      return send(res, 200, page);
    }
    throw new UiError(UiErrorCode.NotFound, `no page at ${path}`);
  }

  async function act(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (ctx.readOnly) throw new UiError(UiErrorCode.Forbidden, 'this view is read-only: it takes no actions');
    if (!sameOrigin(req, options.origins ?? [])) {
      throw new UiError(
        UiErrorCode.Forbidden,
        'the action did not come from a page of this view (its origin is another)',
      );
    }
    const fields = readFields(await readBody(req));
    const instanceId = fields.get('instance')?.[0];
    if (instanceId === undefined || !tokens.verify(instanceId, fields.get('_token')?.[0])) {
      throw new UiError(
        UiErrorCode.Forbidden,
        "the action does not carry its page's token: reload the page and try again",
      );
    }
    if (name === 'retry-group') {
      if (instanceId !== GROUPS_SUBJECT || options.batchList === undefined) {
        throw new UiError(UiErrorCode.BadRequest, 'retrying a group needs the incidents page and a batch list');
      }
      const group = { processId: '', elementId: '', errorMessage: '' };
      for (const key of Object.keys(group) as (keyof typeof group)[]) group[key] = fields.get(key)?.[0] ?? '';
      const batchKey = await options.batchList.retryGroup(group);
      options.batches?.poke();
      res.writeHead(303, { Location: `${base}/batches/${encodeURIComponent(batchKey)}` });
      res.end();
      return;
    }
    if (name === 'migrate-instances') return migrateInstances(res, instanceId, fields);
    const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
    if (!action) throw new UiError(UiErrorCode.NotFound, `no action "${name}"`);
    const done = await action(engine, instanceId, fields);
    // Signed, so that a link made elsewhere cannot put words of its own on the page.
    const notice = new URLSearchParams({ done, sig: tokens.issue(`done\0${done}`) });
    // Back to the list the form was on (its filters kept), else to the instance's page.
    const back = fields.get('back')?.[0];
    if (back !== undefined && /^(tasks|incidents)(\?|$)/.test(back)) {
      res.writeHead(303, { Location: `${base}/${back}` });
      res.end();
      return;
    }
    res.writeHead(303, { Location: `${instanceHref(ctx, instanceId)}?${notice}` });
    res.end();
  }

  /** A version's running instances migrated as one batch (its form's token is the version's), then its page. */
  async function migrateInstances(res: ServerResponse, subject: string, fields: Fields): Promise<void> {
    const definitionId = fields.get('definition')?.[0] ?? '';
    const [fromText, toText] = [fields.get('from')?.[0], fields.get('to')?.[0]];
    if (options.batchList === undefined || subject !== migrateSubject(definitionId, Number(fromText))) {
      throw new UiError(UiErrorCode.BadRequest, 'migrating instances needs the process page and a batch list');
    }
    const versions = await engine.deployments(definitionId);
    const from = versions.find((d) => d.version === Number(fromText));
    const to = versions.find((d) => d.version === Number(toText));
    if (from === undefined || to === undefined)
      throw new UiError(UiErrorCode.NotFound, `no such versions of ${definitionId}`);
    const mapping = (fields.get('map') ?? [])
      .filter((pair) => pair !== '')
      .map((pair) => {
        const [sourceElementId = '', targetElementId = ''] = pair.split('=');
        return { sourceElementId, targetElementId };
      });
    const processIds = [...(await models.model(from)).processes.keys()];
    const targetModel = await models.model(to);
    const processId = processIds.find((id) => targetModel.processes.has(id));
    if (processId === undefined)
      throw new UiError(UiErrorCode.BadRequest, `v${to.version} holds none of v${from.version}'s processes`);
    const key = await options.batchList.migrate(await runningOf(engine, from), {
      processId,
      digest: to.digest,
      mapping,
    });
    options.batches?.poke();
    res.writeHead(303, { Location: `${base}/batches/${encodeURIComponent(key)}` });
    res.end();
  }

  const handler = (async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://view.invalid');
    try {
      if (base !== '' && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
        throw new UiError(UiErrorCode.NotFound, `no page at ${url.pathname}`);
      }
      if (options.token !== undefined && !admitted(req, res, url, options.token, base)) return;
      await route(req, res, url, url.pathname.slice(base.length) || '/');
    } catch (error) {
      if (res.headersSent) {
        res.end();
        return;
      }
      const failure = classify(error);
      if (failure.status === 500) (options.onError ?? console.error)(error);
      // Nothing past the class, code and message: no stack, no file paths.
      send(res, failure.status, errorPage(ctx, failure), failure.status === 401);
    }
  }) as UiHandler;
  handler.close = () => live.close();
  return handler;
}

/** Whether the request carries the access token; a `?token=` one is set as a cookie and the address reloaded without it. */
function admitted(req: IncomingMessage, res: ServerResponse, url: URL, token: string, base: string): boolean {
  const inQuery = url.searchParams.get('token');
  if (inQuery !== null && sameSecret(inQuery, token)) {
    url.searchParams.delete('token');
    res.writeHead(303, {
      'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=${base || '/'}; HttpOnly; SameSite=Strict`,
      Location: `${url.pathname}${url.search}`,
    });
    res.end();
    return false;
  }
  const given = presentedToken(req);
  if (given === undefined || !sameSecret(given, token)) {
    throw new UiError(
      UiErrorCode.Unauthorized,
      'this view needs its access token: open it with ?token=… or send Authorization: Bearer …',
    );
  }
  return true;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new UiError(UiErrorCode.BadRequest, `the form is larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendAsset(res: ServerResponse, digest: string, name: string): void {
  if (!isAssetName(name)) throw new UiError(UiErrorCode.NotFound, `no asset ${name}`);
  const found = asset(name);
  if (found.digest !== digest) throw new UiError(UiErrorCode.NotFound, `no asset ${name} of digest ${digest}`);
  res.writeHead(200, {
    'Content-Type': found.type,
    'Content-Length': found.body.length,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(found.body);
}

function send(res: ServerResponse, status: number, page: Html, challenge = false): void {
  const body = toText(page);
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    ...(challenge ? { 'WWW-Authenticate': 'Bearer realm="thresher"' } : {}),
  });
  res.end(body);
}

interface Failure {
  status: number;
  name: string;
  code: string | undefined;
  message: string;
}

function classify(error: unknown): Failure {
  if (error instanceof UiError)
    return { status: error.status, name: error.name, code: error.code, message: error.message };
  if (error instanceof EngineError) {
    const status = error instanceof NotFoundError ? 404 : error.code === 'THRESHER_INVALID_ARGUMENT' ? 400 : 409;
    return { status, name: error.name, code: error.code, message: firstLine(error.message) };
  }
  if (error instanceof RangeError || error instanceof TypeError) {
    return { status: 400, name: error.name, code: undefined, message: firstLine(error.message) };
  }
  const name = error instanceof Error ? error.name : 'Error';
  return { status: 500, name, code: undefined, message: "the view failed to answer; the server's log has the details" };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

function errorPage(ctx: PageContext, failure: Failure): Html {
  return layout(ctx, {
    title: `${failure.status}`,
    live: 'none',
    body: html`<h1>${failure.status === 404 ? 'Not found' : 'That did not work'}</h1>
<p class="error" id="error"><strong>${failure.name}</strong>${failure.code && html` <code>${failure.code}</code>`}: ${failure.message}</p>
<p><a href="${ctx.base}/">Processes</a> · <a href="${ctx.base}/instances">Instances</a></p>`,
  });
}
