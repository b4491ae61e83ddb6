/**
 * The deployment digest: sha256 over the canonical JSON of the compiled model (docs/architecture.md §2), so it
 * follows behaviour, not bytes — whitespace and diagram layout do not move it.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import stringify from 'fast-json-stable-stringify';
import type { ProcessDef } from './process-types.js';

/** The canonical, Map-free form of a model's processes that the digest covers. */
export function canonicalModel(definitionId: string, processes: ReadonlyMap<string, ProcessDef>): unknown {
  return {
    definitionId,
    processes: sortedObject(processes, (process): unknown => ({
      ...process,
      // Documentation only describes: a model documented since keeps its digest (and its deployment).
      nodes: sortedObject(process.nodes, ({ documentation: _, ...node }) => node),
      flows: sortedObject(process.flows, (flow) => flow),
      // Present only in models with events, so models without them keep their digest.
      ...(process.boundaries ? { boundaries: sortedObject(process.boundaries, (ids) => ids) } : {}),
      ...(process.eventSubProcesses
        ? { eventSubProcesses: sortedObject(process.eventSubProcesses, (ids) => ids) }
        : {}),
    })),
  };
}

/** sha256 hex of the canonical model. */
export function digestModel(definitionId: string, processes: ReadonlyMap<string, ProcessDef>): string {
  return createHash('sha256')
    .update(stringify(canonicalModel(definitionId, processes)), 'utf8')
    .digest('hex');
}

function sortedObject<TValue>(map: ReadonlyMap<string, TValue>, convert: (value: TValue) => unknown): object {
  const keys = [...map.keys()].sort();
  // fromEntries defines own properties, so an element id such as `__proto__` stays a key.
  return Object.fromEntries(keys.map((key) => [key, convert(map.get(key) as TValue)]));
}
