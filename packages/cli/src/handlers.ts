import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Handler, Handlers } from '@thresher/engine';
import { UsageError } from './errors.js';

const isFunction = (value: unknown): value is Handler => typeof value === 'function';

/** The function-valued entries of an object, by key. */
function functionsOf(source: Record<string, unknown>): Handlers {
  const handlers: Handlers = {};
  for (const [taskType, value] of Object.entries(source)) if (isFunction(value)) handlers[taskType] = value;
  return handlers;
}

/**
 * Reads the handlers of a module's namespace: its default export when that is an object of functions
 * (`export default { 'charge-card': async (job) => … }`), else its named function exports
 * (`export async function reserve(job) { … }`, `export { charge as 'charge-card' }`).
 */
export function handlersFromModule(namespace: Record<string, unknown>, where: string, usage?: string): Handlers {
  const fallback = namespace.default;
  if (fallback !== null && typeof fallback === 'object') {
    const fromDefault = functionsOf(fallback as Record<string, unknown>);
    if (Object.keys(fromDefault).length > 0) return fromDefault;
  }
  const { default: _ignored, ...named } = namespace;
  const fromNamed = functionsOf(named);
  if (Object.keys(fromNamed).length > 0) return fromNamed;
  const hint = isFunction(fallback)
    ? 'its default export is a single function; export an object of task type → handler instead'
    : 'export an object of task type → handler as default, or one named function per task type';
  throw new UsageError(`--handlers ${where}: the module exports no handler functions; ${hint}`, usage);
}

/**
 * Loads `--handlers MODULE` (a path relative to `cwd`) into a `Handlers` record. A missing file, a
 * module that fails to load and a module exporting no functions all throw `UsageError`.
 */
export async function loadHandlers(module: string | undefined, cwd: string, usage?: string): Promise<Handlers> {
  if (module === undefined) return {};
  const path = resolve(cwd, module);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) throw new UsageError(`--handlers ${module}: no such file (${path})`, usage);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(
      `--handlers ${module}: the module failed to load: ${error instanceof Error ? error.message : String(error)}`,
      usage,
    );
  }
  return handlersFromModule(namespace, module, usage);
}
