import type { Repository } from '@thresher/checkpoint';
import { Engine, type EngineEvent, type Handlers } from '@thresher/engine';
import { loadHandlers } from './handlers.js';
import type { CliIo } from './io.js';
import { LineReader } from './io.js';
import type { Output } from './output.js';
import { openStore, type StoreSpec, storeFromArgs } from './store.js';

/** How a command was asked to reach its instances, kept to print commands that continue them. */
export interface SessionOptions {
  /** `--store` as given. */
  store: string | undefined;
  /** `--handlers` as given. */
  handlers: string | undefined;
  /** Create the SQLite file when missing (commands that start instances). */
  create: boolean;
  usage: string;
  /** Called with the loaded handlers before the store is touched; throws to refuse them (`run`). */
  checkHandlers?: (handlers: Handlers) => void;
  /** The engine's lease time to live (`worker --lease-ttl`); the engine's default otherwise. */
  leaseTtlMs?: number;
  /** Parked instances leave the engine's memory and their lease (`ui`: it acts on instances workers run). */
  dehydrate?: boolean;
}

/** An engine on a store, with the stdin reader a command may need; `close()` releases all of it. */
export interface Session {
  readonly io: CliIo;
  readonly out: Output;
  readonly engine: Engine;
  readonly repository: Repository;
  readonly store: StoreSpec;
  readonly options: SessionOptions;
  /** Where instances ended by a terminate end event stopped, by instance id (from engine events). */
  readonly terminatedAt: Map<string, string>;
  /** The one stdin line reader of this command, created on first use. */
  lines(): LineReader;
  close(): Promise<void>;
}

/**
 * Loads the handlers, opens the store and starts an engine on it. Usage problems (`--handlers`,
 * `--store`) are found before the store is touched.
 */
export async function openSession(io: CliIo, out: Output, options: SessionOptions): Promise<Session> {
  const handlers = await loadHandlers(options.handlers, io.cwd, options.usage);
  options.checkHandlers?.(handlers);
  const store = storeFromArgs(options.store, io.env, io.cwd, options.usage);
  const repository = await openStore(store, { create: options.create });
  const engine = new Engine({
    repository,
    handlers,
    clock: io.clock,
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
    ...(options.dehydrate ? { dehydrate: true } : {}),
  });
  const terminatedAt = new Map<string, string>();
  engine.on('instance.terminated', (event) => terminatedAt.set(event.instanceId, event.elementId));
  engine.on('*', (event) => {
    const fields = {
      instanceId: event.instanceId,
      elementId: 'elementId' in event ? String(event.elementId) : undefined,
      event: event.type,
    };
    const line = progressLine(event);
    const level = event.type === 'job.failed' || event.type === 'incident.raised' ? 'warn' : 'info';
    if (line !== undefined) out.log(level, line, fields);
    else out.log('debug', `[${short(event.instanceId)}] ${event.type}`, { ...fields, id: event.id });
  });
  let reader: LineReader | undefined;
  return {
    io,
    out,
    engine,
    repository,
    store,
    options,
    terminatedAt,
    lines: () => {
      reader ??= new LineReader(io.stdin);
      return reader;
    },
    close: async () => {
      reader?.close();
      try {
        await engine.close();
      } finally {
        await repository.close();
      }
    },
  };
}

/** Runs `body` on a session and always closes it, the engine first, then the store. */
export async function withSession<T>(
  io: CliIo,
  out: Output,
  options: SessionOptions,
  body: (session: Session) => Promise<T>,
): Promise<T> {
  const session = await openSession(io, out, options);
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}

const short = (instanceId: string): string => instanceId.slice(0, 8);

/** The progress line of an engine event, for the ones a person watching wants to see. */
function progressLine(event: EngineEvent): string | undefined {
  const at = `[${short(event.instanceId)}]`;
  switch (event.type) {
    case 'instance.started':
      return `${at} started ${event.processId} as instance ${event.instanceId}`;
    case 'instance.restored':
      return `${at} restored instance ${event.instanceId} at checkpoint ${event.seq}`;
    case 'job.dispatched': {
      const listener = event.listener ? `${event.listener} listener, ` : '';
      return `${at} ${event.elementId}: running ${event.taskType} (${listener}attempt ${event.attempt})`;
    }
    case 'job.failed':
      return `${at} ${event.elementId}: failed: ${event.error} (${event.retriesLeft} retries left)`;
    case 'userTask.created':
      return `${at} ${event.elementId}: user task waiting`;
    case 'userTask.completed':
      return `${at} ${event.elementId}: user task completed`;
    case 'incident.raised':
      return `${at} ${event.elementId}: incident: ${event.message}`;
    case 'timer.armed':
      return `${at} ${event.elementId}: timer due at ${new Date(event.dueAt).toISOString()}`;
    case 'timer.fired':
      return `${at} ${event.elementId}: timer fired`;
    case 'message.correlated':
      return `${at} ${event.elementId}: took message ${event.name}${event.correlationKey === null ? '' : ` (key ${event.correlationKey})`}`;
    case 'signal.received':
      return `${at} ${event.elementId}: took signal ${event.name}`;
    case 'error.caught':
      return `${at} ${event.elementId}: caught BPMN error ${event.errorCode}`;
    case 'incident.resolved':
      return `${at} ${event.elementId}: incident resolved`;
    case 'instance.completed':
      return `${at} completed`;
    case 'instance.terminated':
      return `${at} terminated at ${event.elementId}`;
    default:
      return undefined;
  }
}
