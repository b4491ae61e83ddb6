import type { IncomingMessage } from 'node:http';
import type { Engine } from '@thresher/engine';
import type { PinnableClock } from './clock.js';
import type { Reply } from './http.js';

/** What an operation is called with. */
export interface Call {
  engine: Engine;
  /** The engine's clock when the server made it pinnable; else the clock operations are refused. */
  clock: PinnableClock | undefined;
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body read by the handler, `undefined` when none was sent. */
  body: unknown;
  /** The largest body the server reads, in bytes. */
  maxBodyBytes: number;
}

export type Operation = (call: Call) => Promise<Reply>;
