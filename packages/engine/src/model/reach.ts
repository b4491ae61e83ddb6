/**
 * Which processes a run of one process can reach through its call activities, as far as the model shows.
 *
 * @module
 */
import type { ProcessDef } from './process-types.js';

/**
 * The process and every process of `processes` it can call, directly or through its children. A call whose
 * process id is a FEEL expression could call any of them; one that names a process deployed elsewhere
 * (`bindingType="latest"` looks in every deployment) is not in `processes` and is not followed.
 */
export function reachableProcesses(processes: ReadonlyMap<string, ProcessDef>, process: ProcessDef): ProcessDef[] {
  const reached = new Map<string, ProcessDef>([[process.id, process]]);
  for (const current of reached.values()) {
    for (const node of current.nodes.values()) {
      if (node.type !== 'callActivity') continue;
      const id = literalString(node.calledElement.source);
      const called = id === undefined ? [...processes.values()] : [processes.get(id)];
      for (const next of called) if (next && !reached.has(next.id)) reached.set(next.id, next);
    }
  }
  return [...reached.values()];
}

/** The string a FEEL source is when it is a string literal; undefined for any other expression. */
export function literalString(source: string): string | undefined {
  try {
    const value: unknown = JSON.parse(source);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
