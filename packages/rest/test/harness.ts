import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { Engine, type EngineOptions } from '@thresher/engine';
import {
  BatchRunner,
  type CamundaRestServer,
  DocumentStore,
  PinnableClock,
  SearchProjection,
  startCamundaRestServer,
} from '@thresher/rest';
import { specResponses } from './spec-responses.js';

export interface Api {
  engine: Engine;
  repository: Repository;
  clock: PinnableClock;
  server: CamundaRestServer;
  /** What searches read; undefined when served without one. */
  projection: SearchProjection | undefined;
  /** What runs batch operations (with the projection). */
  batches: BatchRunner | undefined;
  /** Unhandled failures the handler reported (500s), and responses that do not fit the spec's schema for them. */
  failures: unknown[];
  /** A request to `path` under `/v2`, its body sent as JSON unless it is a string. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * An engine on a memory store (or the one given) with a pinnable clock and a search projection (unless `projection`
 * is false), its API served on a free loopback port.
 */
export async function serveApi(
  engineOptions: Partial<EngineOptions> = {},
  options: { projection?: boolean; repository?: Repository; documents?: DocumentStore } = {},
): Promise<Api> {
  const clock = new PinnableClock();
  const repository = options.repository ?? createMemoryRepository();
  const engine = new Engine({ repository, clock, ...engineOptions });
  const failures: unknown[] = [];
  // Every response checked against the spec's schema for it, where the spec is on this machine.
  const checker = specResponses();
  const projection =
    options.projection === false
      ? undefined
      : new SearchProjection(engine, repository, { onError: (error) => failures.push(error) });
  const batches =
    projection === undefined
      ? undefined
      : new BatchRunner(engine, repository, { pollMs: 20, onError: (error) => failures.push(error) });
  batches?.start();
  const server = await startCamundaRestServer({
    engine,
    clock,
    port: 0,
    projection,
    documents: options.documents ?? new DocumentStore(null),
    ...(batches === undefined ? {} : { batches }),
    onError: (error) => failures.push(error),
  });
  return {
    engine,
    repository,
    clock,
    server,
    projection,
    batches,
    failures,
    call: async (method, path, body, headers = {}) => {
      const raw = body === undefined || typeof body === 'string' || body instanceof FormData;
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: raw ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: raw ? (body as string | FormData) : JSON.stringify(body) }),
      });
      if (checker !== null) {
        const seen = { method, path, status: response.status, contentType: response.headers.get('content-type') };
        const problems = checker.check({ ...seen, body: await response.clone().text() });
        for (const problem of problems) failures.push(new Error(`the spec's response schema: ${problem}`));
      }
      return response;
    },
    close: async () => {
      await batches?.close();
      await server.close();
      await projection?.close();
      await engine.close();
    },
  };
}

/** The problem a response carries, checked to be one. */
export async function problemOf(
  response: Response,
): Promise<{ title: string; status: number; detail: string; instance: string; type: string }> {
  if (response.headers.get('content-type') !== 'application/problem+json') {
    throw new Error(
      `expected a problem response, got ${response.status} ${response.headers.get('content-type')}: ${await response.text()}`,
    );
  }
  return (await response.json()) as { title: string; status: number; detail: string; instance: string; type: string };
}
