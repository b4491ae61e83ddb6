import type { Handlers } from '@thresher/engine';
import { knownJobs, type ProcessDef, reachableProcesses } from '@thresher/engine/model';

/** A task type a process runs that no handler takes, with the elements that use it. */
export interface MissingHandler {
  taskType: string;
  /** Element ids, in model order. */
  elementIds: string[];
}

/**
 * The task types of a process's jobs (service and send tasks, message throws, execution listeners — the
 * process's own and its elements', nested ones included, and those of the processes of `processes` it
 * calls) for which `handlers` has no function, sorted by type.
 */
export function missingHandlers(
  process: ProcessDef,
  handlers: Handlers,
  processes: ReadonlyMap<string, ProcessDef> = new Map(),
): MissingHandler[] {
  const missing = new Map<string, string[]>();
  // A type given as `=expr` is known only when its job is created; a missing handler then is an incident naming it.
  const jobs = reachableProcesses(processes, process).flatMap(knownJobs);
  for (const { taskType, elementId } of jobs) {
    // Own keys only, as the engine looks handlers up: `toString` is not a handler.
    if (Object.hasOwn(handlers, taskType) && typeof handlers[taskType] === 'function') continue;
    const elements = missing.get(taskType) ?? [];
    // An element with a listener of its task's type (or two listeners of one type) is named once.
    if (!elements.includes(elementId)) elements.push(elementId);
    missing.set(taskType, elements);
  }
  return [...missing]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([taskType, elementIds]) => ({ taskType, elementIds }));
}

/** `task type a (element x)` or `task types a (element x), b (elements y, z)`. */
export function describeMissing(missing: readonly MissingHandler[]): string {
  const items = missing.map(({ taskType, elementIds }) => {
    const elements = `${elementIds.length === 1 ? 'element' : 'elements'} ${elementIds.join(', ')}`;
    return `${taskType} (${elements})`;
  });
  return `${missing.length === 1 ? 'task type' : 'task types'} ${items.join(', ')}`;
}

/**
 * Why `run` refuses to start: which task types of the process `--handlers` has no handler for, what it
 * exports, and the two ways on.
 */
export function missingHandlersRefusal(
  missing: readonly MissingHandler[],
  processId: string,
  module: string,
  handlers: Handlers,
): string {
  const exported = Object.keys(handlers);
  const exports = exported.length === 0 ? 'nothing' : exported.join(', ');
  return `--handlers ${module} has no handler for ${describeMissing(missing)} of process ${processId} (it exports ${exports}); export one for each, or pass --allow-missing-handlers to start anyway`;
}

/** What `run --allow-missing-handlers` warns of before it starts. */
export function missingHandlersWarning(missing: readonly MissingHandler[]): string {
  return `warning: no handler for ${describeMissing(missing)}; starting anyway (--allow-missing-handlers): an instance that reaches one stops with an incident`;
}
