import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { Engine, type EngineOptions } from '@thresher/engine';
import { type CamundaRestServer, PinnableClock, startCamundaRestServer } from '@thresher/rest';

export interface Api {
  engine: Engine;
  repository: Repository;
  clock: PinnableClock;
  server: CamundaRestServer;
  /** Unhandled failures the handler reported (500s). */
  failures: unknown[];
  /** A request to `path` under `/v2`, its body sent as JSON unless it is a string. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** An engine on a memory store with a pinnable clock, its API served on a free loopback port. */
export async function serveApi(engineOptions: Partial<EngineOptions> = {}): Promise<Api> {
  const clock = new PinnableClock();
  const repository = createMemoryRepository();
  const engine = new Engine({ repository, clock, ...engineOptions });
  const failures: unknown[] = [];
  const server = await startCamundaRestServer({ engine, clock, port: 0, onError: (error) => failures.push(error) });
  return {
    engine,
    repository,
    clock,
    server,
    failures,
    call: (method, path, body, headers = {}) =>
      fetch(`${server.url}${path}`, {
        method,
        headers:
          body === undefined || typeof body === 'string' ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    close: async () => {
      await server.close();
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
