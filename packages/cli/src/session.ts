import type { Repository } from '@thresher/checkpoint';
import { type Clock, Engine, type EngineEvent, type Handlers } from '@thresher/engine';
import { loadHandlers } from './handlers.js';
import type { CliIo } from './io.js';
import { LineReader } from './io.js';
import { startOtel } from './otel.js';
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
  /** The engine's `loopWarning` (`show --loop-warning`); the engine's default otherwise. */
  loopWarning?: number;
  /** `--otel`: export traces and metrics over OTLP (`otel.ts`), set up before the engine. */
  otel?: boolean;
  /** The engine's clock in place of the CLI's (`serve`: one its API can pin). */
  clock?: Clock;
  /** Jobs with no handler wait for workers outside the engine (`serve`: its API's job workers). */
  externalJobs?: boolean;
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
  const otel = options.otel ? await startOtel(io.env) : undefined;
  const repository = await openStore(store, { create: options.create });
  const engine = new Engine({
    repository,
    handlers,
    clock: options.clock ?? io.clock,
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
    ...(options.dehydrate ? { dehydrate: true } : {}),
    ...(options.loopWarning === undefined ? {} : { loopWarning: options.loopWarning }),
    ...(options.externalJobs ? { externalJobs: true } : {}),
  });
  const terminatedAt = new Map<string, string>();
  engine.on('instance.terminated', (event) => terminatedAt.set(event.instanceId, event.elementId));
  logEvents(engine, out);
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
        // After the engine: its close ends the spans still open.
        await otel?.shutdown();
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

type ProgressLines = { [T in EngineEvent['type']]?: (event: Extract<EngineEvent, { type: T }>, at: string) => string };

/** The progress line of each engine event a person watching wants to see; the others are details (debug). */
const PROGRESS: ProgressLines = {
  'instance.started': (event, at) => `${at} started ${event.processId} as instance ${event.instanceId}`,
  'instance.restored': (event, at) => `${at} restored instance ${event.instanceId} at checkpoint ${event.seq}`,
  'job.dispatched': (event, at) => {
    const listener = event.listener ? `${event.listener} listener, ` : '';
    return `${at} ${event.elementId}: running ${event.taskType} (${listener}attempt ${event.attempt})`;
  },
  'job.failed': (event, at) => `${at} ${event.elementId}: failed: ${event.error} (${event.retriesLeft} retries left)`,
  'userTask.created': (event, at) => `${at} ${event.elementId}: user task waiting`,
  'userTask.completed': (event, at) => `${at} ${event.elementId}: user task completed`,
  'incident.raised': (event, at) => `${at} ${event.elementId}: incident: ${event.message}`,
  'timer.armed': (event, at) => `${at} ${event.elementId}: timer due at ${new Date(event.dueAt).toISOString()}`,
  'timer.fired': (event, at) => `${at} ${event.elementId}: timer fired`,
  'message.correlated': (event, at) =>
    `${at} ${event.elementId}: took message ${event.name}${event.correlationKey === null ? '' : ` (key ${event.correlationKey})`}`,
  'signal.received': (event, at) => `${at} ${event.elementId}: took signal ${event.name}`,
  'error.caught': (event, at) => `${at} ${event.elementId}: caught BPMN error ${event.errorCode}`,
  'incident.resolved': (event, at) => `${at} ${event.elementId}: incident resolved`,
  'instance.completed': (_event, at) => `${at} completed`,
  'instance.terminated': (event, at) => `${at} terminated at ${event.elementId}`,
};

/** What went wrong on the way: logged at warn, the rest of the progress at info. */
const WARNINGS = new Set<EngineEvent['type']>(['job.failed', 'incident.raised']);

/**
 * Logs the engine's events as `out` asks: every event at debug (`*`), else only the types with a progress
 * line, and nothing at all when no line would be written — a listener makes the engine build its events.
 */
function logEvents(engine: Engine, out: Output): void {
  const log = (event: EngineEvent): void => {
    const fields = {
      instanceId: event.instanceId,
      elementId: 'elementId' in event ? String(event.elementId) : undefined,
      event: event.type,
    };
    const format = PROGRESS[event.type] as ((event: EngineEvent, at: string) => string) | undefined;
    const at = `[${short(event.instanceId)}]`;
    if (format) out.log(WARNINGS.has(event.type) ? 'warn' : 'info', format(event, at), fields);
    else out.log('debug', `${at} ${event.type}`, { ...fields, id: event.id });
  };
  if (out.wants('debug')) {
    engine.on('*', log);
    return;
  }
  for (const type of Object.keys(PROGRESS) as EngineEvent['type'][]) {
    if (out.wants(WARNINGS.has(type) ? 'warn' : 'info')) engine.on(type, log);
  }
}
