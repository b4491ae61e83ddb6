import type { IncomingMessage } from 'node:http';
import type { Engine } from '@thresher/engine';
import type { BatchRunner } from './batch/runner.js';
import type { Catalog } from './catalog.js';
import type { PinnableClock } from './clock.js';
import type { DocumentStore } from './documents.js';
import type { Reply } from './http.js';
import type { InstanceKeys } from './instance-keys.js';
import type { SearchProjection } from './projection/search-projection.js';

/** What an operation is called with. */
export interface Call {
  engine: Engine;
  /** The engine's clock when the server made it pinnable; else the clock operations are refused. */
  clock: PinnableClock | undefined;
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The body as JSON, `undefined` when none was sent (`readJson`: 413, 415 and 400 as problems). */
  json(): Promise<unknown>;
  /** The body's bytes, bounded as `json` bounds them. */
  bytes(): Promise<Buffer>;
  /** What the operations share about the deployments in the store. */
  catalog: Catalog;
  /** Process instance keys and the instances they name. */
  keys: InstanceKeys;
  /** What searches of runtime data read; undefined when the handler keeps none (they answer 501). */
  projection: SearchProjection | undefined;
  /** Where documents are kept; undefined when the handler keeps none (the document operations answer 501). */
  documents: DocumentStore | undefined;
  /** What runs batch operations, told when one is made; undefined when the handler runs none here. */
  batches: BatchRunner | undefined;
}

export type Operation = (call: Call) => Promise<Reply>;
