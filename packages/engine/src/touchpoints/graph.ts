/**
 * A process's flow graph as the touchpoint plan walks it: each container's elements, where a run of a
 * container starts, what follows an element (its sequence flows, and a link throw's catch), and the
 * boundary events on an activity.
 *
 * @module
 */
import type { BoundaryEventNode, Node } from '../model/node-types.js';
import type { ProcessDef } from '../model/process-types.js';
import { NodeType } from '../model/types.js';

/** The graph of one process, built once per plan. */
export interface ProcessGraph {
  readonly process: ProcessDef;
  /** The elements of each container (the process id, or a sub-process id), in document order. */
  readonly members: ReadonlyMap<string, readonly string[]>;
  node(id: string): Node;
  /** Where a run of the container begins: its start events (a process's event starts too), in document order. */
  starts(containerId: string): readonly string[];
  /** What an element leads to: its flows' targets in document order; a link throw's catch. */
  successors(id: string): readonly string[];
  /** The boundary events attached to an activity, in document order. */
  boundaries(id: string): readonly BoundaryEventNode[];
  /** `/` and the sub-process ids down to the element, then its id: `/sub_1/task_3`. */
  position(id: string): string;
  /** The sub-process an element sits in; undefined at the process level. */
  parent(id: string): Node | undefined;
}

/** Builds the graph of `process`. */
export function processGraph(process: ProcessDef): ProcessGraph {
  const members = new Map<string, string[]>([[process.id, []]]);
  for (const node of process.nodes.values()) {
    const list = members.get(node.container);
    if (list) list.push(node.id);
    else members.set(node.container, [node.id]);
  }
  const node = (id: string): Node => {
    const found = process.nodes.get(id);
    if (!found) throw new Error(`touchpoints: process ${process.id} has no element "${id}"`);
    return found;
  };
  const linkCatches = new Map<string, string[]>();
  for (const each of process.nodes.values()) {
    if (each.type === NodeType.IntermediateCatchEvent && each.event.kind === 'link') {
      const key = `${each.container}\n${each.event.name}`;
      linkCatches.set(key, [...(linkCatches.get(key) ?? []), each.id]);
    }
  }
  const successors = new Map<string, string[]>();
  const positions = new Map<string, string>();
  const boundaries = new Map<string, readonly BoundaryEventNode[]>();
  const graph: ProcessGraph = {
    process,
    members,
    node,
    starts(containerId) {
      if (containerId === process.id) {
        const starts = new Set([...process.startNodes, ...(process.eventStartNodes ?? [])]);
        return (members.get(containerId) ?? []).filter((id) => starts.has(id));
      }
      const container = node(containerId);
      // An ad-hoc sub-process may start at any element it can activate.
      if (container.type !== NodeType.SubProcess) return [];
      return container.adHoc ? container.adHoc.activatable : container.startNodes;
    },
    successors(id) {
      let found = successors.get(id);
      if (!found) {
        const from = node(id);
        found = from.outgoing.flatMap((flowId) => {
          const target = process.flows.get(flowId)?.target;
          return target === undefined ? [] : [target];
        });
        if (from.type === NodeType.IntermediateThrowEvent && from.event?.kind === 'link') {
          found.push(...(linkCatches.get(`${from.container}\n${from.event.name}`) ?? []));
        }
        successors.set(id, found);
      }
      return found;
    },
    boundaries(id) {
      let found = boundaries.get(id);
      if (!found) {
        found = (process.boundaries?.get(id) ?? []).map((boundaryId) => node(boundaryId) as BoundaryEventNode);
        boundaries.set(id, found);
      }
      return found;
    },
    position(id) {
      let found = positions.get(id);
      if (found === undefined) {
        const container = node(id).container;
        found = `${container === process.id ? '' : graph.position(container)}/${id}`;
        positions.set(id, found);
      }
      return found;
    },
    parent(id) {
      const container = node(id).container;
      return container === process.id ? undefined : node(container);
    },
  };
  return graph;
}

/** Whether an element is an event sub-process. */
export function isEventSubProcess(node: Node): boolean {
  return node.type === NodeType.SubProcess && node.triggeredByEvent === true;
}

/** Whether a boundary event takes its activity's run away (a compensation boundary never does). */
export function leavesActivity(boundary: BoundaryEventNode): boolean {
  return boundary.interrupting && boundary.event.kind !== 'compensate';
}
