/**
 * Live updates: `GET /events?subject=…` is a stream of server-sent `change` events, one whenever what a page
 * shows may have moved. Embedded, they come from `engine.on` (this engine's own steps); from `thresher ui`,
 * whose engine is not the one running the instances, the store's index is polled instead.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine, EngineEvent } from '@thresher/engine';

/** Where a page's changes come from: this engine's events, or polling the store. */
export type LiveSource = 'events' | 'poll';

const HEARTBEAT_MS = 15_000;
/** At most one change a page per this long: a busy engine must not make a page reload without pause. */
const THROTTLE_MS = 250;

interface Client {
  readonly subject: string;
  changed(): void;
}

export class Live {
  readonly #clients = new Set<Client>();
  #unsubscribe: (() => void) | undefined;
  #closed = false;

  constructor(
    private readonly engine: Engine,
    private readonly source: LiveSource,
    private readonly pollMs: number,
    private readonly limit: number,
  ) {}

  /**
   * Serves one page's stream until the page goes away. Polling, the page's first reading is taken before the
   * stream opens: whatever changes once the page is connected is reported.
   */
  async serve(req: IncomingMessage, res: ServerResponse, subject: string): Promise<void> {
    const baseline = this.source === 'poll' ? await signature(this.engine, subject, this.limit) : undefined;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    let pending: NodeJS.Timeout | undefined;
    const client: Client = {
      subject,
      changed: () => {
        pending ??= setTimeout(() => {
          pending = undefined;
          res.write(`event: change\ndata: ${JSON.stringify({ subject, at: Date.now() })}\n\n`);
        }, THROTTLE_MS);
      },
    };
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    const poll = baseline === undefined ? undefined : this.#poll(client, baseline);
    this.#clients.add(client);
    this.#listen();
    const end = () => {
      clearInterval(heartbeat);
      if (poll) clearInterval(poll);
      if (pending) clearTimeout(pending);
      this.#clients.delete(client);
      if (this.#clients.size === 0) this.#stopListening();
    };
    req.on('close', end);
    res.on('close', end);
    if (this.#closed) res.end();
  }

  /** Ends every stream and stops listening. */
  close(): void {
    this.#closed = true;
    this.#stopListening();
    this.#clients.clear();
  }

  #listen(): void {
    if (this.source !== 'events' || this.#unsubscribe) return;
    this.#unsubscribe = this.engine.on('*', (event: EngineEvent) => {
      for (const client of this.#clients) if (concerns(client.subject, event)) client.changed();
    });
  }

  #stopListening(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Polls the store for what the page shows, reporting a change when its signature moves. */
  #poll(client: Client, baseline: string): NodeJS.Timeout {
    let last = baseline;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      signature(this.engine, client.subject, this.limit)
        .then((now) => {
          if (now !== last) client.changed();
          last = now;
        })
        .catch(() => {
          // A failed read (the store busy or gone) is tried again at the next tick.
        })
        .finally(() => {
          busy = false;
        });
    }, this.pollMs);
    timer.unref();
    return timer;
  }
}

function concerns(subject: string, event: EngineEvent): boolean {
  if (subject.startsWith('instance:'))
    return 'instanceId' in event && event.instanceId === subject.slice('instance:'.length);
  return true;
}

/** What a page shows, as the store's index says it: a change of it is a change of the page. */
async function signature(engine: Engine, subject: string, limit: number): Promise<string> {
  if (subject.startsWith('instance:')) {
    const id = subject.slice('instance:'.length);
    const [seq, children] = await Promise.all([engine.headSeq(id), engine.instances({ parentId: id })]);
    return JSON.stringify([seq ?? null, children.map((s) => [s.instanceId, s.latestSeq])]);
  }
  const query = subject.startsWith('definition:')
    ? { definition: subject.slice('definition:'.length) }
    : subject.startsWith('root:')
      ? { rootId: subject.slice('root:'.length) }
      : {};
  const page = await engine.instances({ ...query, order: 'desc', limit });
  return JSON.stringify(page.map((s) => [s.instanceId, s.latestSeq]));
}
