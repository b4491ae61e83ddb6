import { type Handlers, isJobNode, type ProcessDef, reachableProcesses } from '@thresher/engine';

/** A task type a process runs that no handler takes, with the elements that use it. */
export interface MissingHandler {
  taskType: string;
  /** Element ids, in model order. */
  elementIds: string[];
}

/**
 * The task types of a process's jobs (service and send tasks, message throws, nested ones included, and
 * those of the processes of `processes` it calls) for which `handlers` has no function, sorted by type.
 */
export function missingHandlers(
  process: ProcessDef,
  handlers: Handlers,
  processes: ReadonlyMap<string, ProcessDef> = new Map(),
): MissingHandler[] {
  const missing = new Map<string, string[]>();
  const nodes = reachableProcesses(processes, process).flatMap((reached) => [...reached.nodes.values()]);
  for (const node of nodes) {
    // A type given as `=expr` is known only when its job is created; a missing handler then is an incident naming it.
    if (!isJobNode(node) || node.typeExpression) continue;
    // Own keys only, as the engine looks handlers up: `toString` is not a handler.
    if (Object.hasOwn(handlers, node.taskType) && typeof handlers[node.taskType] === 'function') continue;
    const elements = missing.get(node.taskType) ?? [];
    elements.push(node.id);
    missing.set(node.taskType, elements);
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
