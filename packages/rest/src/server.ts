import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '@thresher/engine';
import type { Authenticator } from './auth.js';
import { type CamundaRestOptions, createCamundaRestHandler } from './handler.js';
import { sendJson } from './http.js';
import { Problem, ProblemKind } from './problem.js';

/** Another handler served beside the API under a path of its own (`thresher serve --ui`: the web view). */
export interface Mount {
  /** `/ui`: requests to it and below go to `handler`. */
  path: string;
  handler: (req: IncomingMessage, res: ServerResponse) => unknown;
}

export interface CamundaRestServerOptions extends Omit<CamundaRestOptions, 'basePath'> {
  engine: Engine;
  /** Default 127.0.0.1. Another interface is refused unless the server authenticates its callers (`authenticate`). */
  host?: string;
  /** Who may call: asked before every request, to the API and its mounts alike (`basicAuthenticator`, `bearerAuthenticator`). */
  authenticate?: Authenticator;
  /** Default 8080, Camunda's; 0 picks a free one. */
  port?: number;
  mounts?: readonly Mount[];
}

export interface CamundaRestServer {
  /** The API's root, `http://127.0.0.1:8080/v2`. */
  readonly url: string;
  readonly server: Server;
  /**
   * Stop listening; requests under way are answered (for up to `graceMs`, default 5 s), then the rest of the
   * connections are closed. The engine is the caller's to close, after this.
   */
  close(graceMs?: number): Promise<void>;
}

/** Whether `host` names this machine only. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Serve the API (and any mounts) on one port. */
export async function startCamundaRestServer(options: CamundaRestServerOptions): Promise<CamundaRestServer> {
  const { engine, host = '127.0.0.1', port = 8080, mounts = [], authenticate, ...rest } = options;
  if (!isLoopback(host) && authenticate === undefined) {
    throw new RangeError(
      `listening on ${host} would let that network drive every instance without asking who calls: give authenticate (Basic or bearer), or listen on 127.0.0.1`,
    );
  }
  for (const mount of mounts) {
    if (!/^\/[^/]/.test(mount.path) || mount.path.startsWith('/v2')) {
      throw new RangeError(`a mount's path must start with "/" and not be the API's /v2, got "${mount.path}"`);
    }
  }
  const api = createCamundaRestHandler(engine, rest);
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const mount = mounts.find((m) => path === m.path || path.startsWith(`${m.path}/`));
    void (mount === undefined ? api(req, res) : mount.handler(req, res));
  };
  const server = createServer((req, res) => {
    if (authenticate === undefined) return serve(req, res);
    authenticate.authenticate(req).then(
      () => serve(req, res),
      (error: unknown) => {
        const path = (req.url ?? '/').split('?')[0]!;
        if (!Problem.is(error)) (rest.onError ?? console.error)(error);
        const problem = Problem.is(error)
          ? error
          : new Problem(ProblemKind.Internal, 'authentication failed on the server');
        if (problem.kind === ProblemKind.Unauthorized) res.setHeader('www-authenticate', authenticate.challenge);
        // The body is not read: the connection closes rather than drain it.
        res.setHeader('connection', 'close');
        sendJson(res, problem.status, problem.body(path), 'application/problem+json');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/v2`,
    server,
    close: (graceMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close((error) => {
          clearTimeout(force);
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
