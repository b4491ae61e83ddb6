/**
 * `createCamundaRestHandler(engine, options)`: Camunda 8.8's Orchestration Cluster REST API (`/v2/...`) on a
 * Thresher engine, as a Node `(req, res)` handler an app mounts under a path of its own, or `thresher serve`
 * serves. Every refusal is a problem response; nothing is changed by a refused request.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine } from '@thresher/engine';
import type { BatchRunner } from './batch/runner.js';
import { Catalog } from './catalog.js';
import type { PinnableClock } from './clock.js';
import type { DocumentStore } from './documents.js';
import { problemOfEngine } from './engine-problems.js';
import { fromAnotherSite, readBytes, readJson, sendJson, sendReply } from './http.js';
import { InstanceKeys } from './instance-keys.js';
import { operationOf } from './operations.js';
import { Problem, ProblemKind } from './problem.js';
import type { SearchProjection } from './projection/search-projection.js';
import { Router } from './router.js';

export interface CamundaRestOptions {
  /** The path the API is mounted under; requests go to `<basePath>/v2/...`. Default: the root. */
  basePath?: string;
  /**
   * The engine's clock, when the engine was made with it (`EngineOptions.clock`): `PUT /v2/clock` pins it.
   * Without it, the clock operations are refused (403).
   */
  clock?: PinnableClock;
  /** The largest request body read, in bytes; a larger one is refused (413). Default 4 MiB, Zeebe's. */
  maxBodyBytes?: number;
  /**
   * What the searches of runtime data (process instances, user tasks, incidents, variables) read: a projection of
   * the engine's event log kept in its store (`new SearchProjection(engine, repository)`). Without it they answer 501.
   */
  projection?: SearchProjection;
  /**
   * Where the document operations keep files (`new DocumentStore(dir)`, or `null` for memory). Without it they
   * answer 501.
   */
  documents?: DocumentStore;
  /**
   * What runs batch operations (`new BatchRunner(engine, repository)`, started): told when a batch is made.
   * Without it, batches are made and kept, and done by a runner elsewhere on the store.
   */
  batches?: BatchRunner;
  /** Told of every failure no problem kind names (answered as a 500 without its details). Default: `console.error`. */
  onError?: (error: unknown) => void;
}

export type CamundaRestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createCamundaRestHandler(engine: Engine, options: CamundaRestOptions = {}): CamundaRestHandler {
  const base = `${(options.basePath ?? '').replace(/\/+$/, '')}/v2`;
  if (!base.startsWith('/')) throw new RangeError(`basePath must start with "/", got "${options.basePath}"`);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${options.maxBodyBytes}`);
  }
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const router = new Router();
  const catalog = new Catalog(engine);
  const keys = new InstanceKeys(engine);

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
        throw new Problem(ProblemKind.NotFound, `no operation at ${url.pathname}: the API is under ${base}`);
      }
      const method = req.method ?? 'GET';
      // A browser holding Basic credentials sends them with another site's form too: such a request reads nothing
      // it could show that site (no CORS), and may change nothing.
      if (!SAFE_METHODS.has(method) && fromAnotherSite(req)) {
        throw new Problem(
          ProblemKind.Forbidden,
          `a browser's request from another site's page may not change anything: ${method} ${url.pathname} is refused (Origin ${req.headers.origin ?? 'not sent'})`,
        );
      }
      const { operation, params } = router.route(method, url.pathname.slice(base.length), url.pathname);
      const run = operationOf(operation);
      const reply = await run({
        engine,
        clock: options.clock,
        req,
        params,
        query: url.searchParams,
        json: () => readJson(req, maxBodyBytes),
        bytes: () => readBytes(req, maxBodyBytes),
        catalog,
        keys,
        projection: options.projection,
        documents: options.documents,
        batches: options.batches,
      });
      sendReply(res, reply);
    } catch (error) {
      const problem = Problem.is(error) ? error : (problemOfEngine(error) ?? unclassified(error, onError));
      // A body refused part-way is not read on: the connection closes rather than drain it.
      if (problem.kind === ProblemKind.PayloadTooLarge) res.setHeader('connection', 'close');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, problem.status, problem.body(url.pathname), 'application/problem+json');
    }
  };
}

function unclassified(error: unknown, onError: (error: unknown) => void): Problem {
  onError(error);
  return new Problem(ProblemKind.Internal, 'the request failed on the server; its log has the details');
}
