import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '@thresher/engine';
import { UiError, UiErrorCode } from './errors.js';
import { createUiHandler, type UiOptions } from './handler.js';
import { isLoopback } from './security.js';

export interface UiServerOptions extends Omit<UiOptions, 'basePath'> {
  engine: Engine;
  /** The interface to listen on. Default `127.0.0.1`: this machine only. Any other needs `token`. */
  host?: string;
  /** The port; 0 (default) takes a free one. */
  port?: number;
}

export interface UiServer {
  /** The view's address: `http://HOST:PORT/`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Serves the view of `engine` over HTTP. Refuses (`THRESHER_UI_TOKEN_REQUIRED`) to listen beyond loopback
 * without an access token: the view shows every variable of every instance, and can act on them.
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && (options.token === undefined || options.token === '')) {
    throw new UiError(
      UiErrorCode.TokenRequired,
      `listening on ${host} would show every instance's variables to that network: give an access token (--token or THRESHER_UI_TOKEN), or listen on 127.0.0.1`,
    );
  }
  const { engine, host: _host, port = 0, ...view } = options;
  const handler = createUiHandler(engine, view);
  const server = createServer((req, res) => void handler(req, res));
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
    url: `http://${shown}:${address.port}/`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        handler.close();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
