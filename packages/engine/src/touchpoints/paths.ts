/**
 * Which elements a run may pass by (`conditional`) and which it may pass more than once (`repeated`),
 * read off the flow graph alone: no condition is evaluated.
 *
 * @module
 */
import type { Node } from '../model/node-types.js';
import { NodeType } from '../model/types.js';
import { isEventSubProcess, leavesActivity, type ProcessGraph } from './graph.js';

/** `conditional` and `repeated` for the elements of one process, each computed once. */
export interface PathFacts {
  /** Whether some complete run of the process can avoid the element. */
  conditional(id: string): boolean;
  /** Whether a run can reach the element more than once. */
  repeated(id: string): boolean;
}

/** The path facts of a process's graph. */
export function pathFacts(graph: ProcessGraph): PathFacts {
  const conditional = new Map<string, boolean>();
  const repeated = new Map<string, boolean>();
  const onCycle = new Map<string, ReadonlySet<string>>();
  const afterNonInterrupting = new Map<string, ReadonlySet<string>>();
  const before = new Map<string, ReadonlyMap<string, readonly string[]>>();
  const facts: PathFacts = {
    conditional(id) {
      let found = conditional.get(id);
      if (found === undefined) {
        // Inside a sub-process: conditional when the sub-process is, or when its own runs can avoid it.
        const parent = graph.parent(id);
        const container = graph.node(id).container;
        if (!before.has(container)) before.set(container, predecessors(graph, container));
        found =
          (parent !== undefined && facts.conditional(parent.id)) ||
          avoidable(graph, id, before.get(container) ?? new Map());
        conditional.set(id, found);
      }
      return found;
    },
    repeated(id) {
      let found = repeated.get(id);
      if (found === undefined) {
        const node = graph.node(id);
        const parent = graph.parent(id);
        const container = node.container;
        if (!onCycle.has(container)) onCycle.set(container, cyclic(graph, container));
        if (!afterNonInterrupting.has(container)) {
          afterNonInterrupting.set(container, afterNonInterruptingBoundaries(graph, container));
        }
        found =
          node.loop !== undefined ||
          onCycle.get(container)?.has(id) === true ||
          afterNonInterrupting.get(container)?.has(id) === true ||
          (isEventSubProcess(node) && !interrupts(graph, node)) ||
          (parent !== undefined && facts.repeated(parent.id));
        repeated.set(id, found);
      }
      return found;
    },
  };
  return facts;
}

/**
 * Whether a run of the element's container, from one of its starts, can reach the container's end without
 * passing the element. The least fixpoint of "x can avoid n": x is not n, and x ends the container, or
 * every successor of a split that takes them all can avoid n, or some successor of a choice can, or some
 * boundary event that takes x's run away can. A cycle alone never ends, so it never avoids.
 */
function avoidable(graph: ProcessGraph, target: string, before: ReadonlyMap<string, readonly string[]>): boolean {
  const container = graph.node(target).container;
  const avoids = new Set<string>();
  // A worklist: an element is looked at again only when something it leads to was found to avoid.
  const queue = [...(graph.members.get(container) ?? [])];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (id === target || avoids.has(id) || !canAvoid(graph, id, avoids)) continue;
    avoids.add(id);
    queue.push(...(before.get(id) ?? []));
  }
  return graph.starts(container).some((start) => avoids.has(start));
}

/** What leads to each element of a container: its flows' sources, a link catch's throws, a boundary's activity. */
function predecessors(graph: ProcessGraph, container: string): ReadonlyMap<string, readonly string[]> {
  const before = new Map<string, string[]>();
  const add = (to: string, from: string) => before.set(to, [...(before.get(to) ?? []), from]);
  for (const id of graph.members.get(container) ?? []) {
    for (const next of graph.successors(id)) add(next, id);
    for (const boundary of graph.boundaries(id)) add(boundary.id, id);
  }
  return before;
}

function canAvoid(graph: ProcessGraph, id: string, avoids: ReadonlySet<string>): boolean {
  const node = graph.node(id);
  const successors = graph.successors(id);
  if (ends(node) || successors.length === 0) return true;
  return (
    leavesAvoiding(node, successors, avoids) ||
    graph.boundaries(id).some((boundary) => leavesActivity(boundary) && avoids.has(boundary.id))
  );
}

/**
 * Whether the element's way on can avoid the target: a gateway's choice if some branch can; a parallel
 * split, or any other element (which takes all its flows: the compiler refuses conditions on flows out of
 * anything but a gateway), only if every one can.
 */
function leavesAvoiding(node: Node, successors: readonly string[], avoids: ReadonlySet<string>): boolean {
  switch (node.type) {
    case NodeType.ExclusiveGateway:
    case NodeType.InclusiveGateway:
    case NodeType.EventBasedGateway:
      return successors.some((next) => avoids.has(next));
    default:
      return successors.every((next) => avoids.has(next));
  }
}

function ends(node: Node): boolean {
  return node.type === NodeType.EndEvent || node.type === NodeType.TerminateEndEvent;
}

/** An event sub-process interrupts its scope unless its start event says otherwise. */
function interrupts(graph: ProcessGraph, node: Node): boolean {
  if (node.type !== NodeType.SubProcess) return true;
  const start = graph.process.nodes.get(node.startNodes[0] ?? '');
  return start?.type !== NodeType.StartEvent || start.interrupting !== false;
}

/**
 * The elements of a container on a cycle of its flows (boundary events count as flows out of their
 * activity: a boundary path leading back makes the activity run again). Tarjan's strongly connected
 * components, iterative.
 */
function cyclic(graph: ProcessGraph, container: string): ReadonlySet<string> {
  const next = (id: string) => [...graph.successors(id), ...graph.boundaries(id).map((boundary) => boundary.id)];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found = new Set<string>();
  let counter = 0;
  for (const root of graph.members.get(container) ?? []) {
    if (index.has(root)) continue;
    const walk = [{ id: root, next: next(root) }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (walk.length > 0) {
      const top = walk[walk.length - 1] as (typeof walk)[number];
      const child = top.next.pop();
      if (child !== undefined) {
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          walk.push({ id: child, next: next(child) });
        } else if (onStack.has(child)) {
          low.set(top.id, Math.min(low.get(top.id) ?? 0, index.get(child) ?? 0));
        }
        continue;
      }
      walk.pop();
      const parent = walk[walk.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) ?? 0, low.get(top.id) ?? 0));
      if (low.get(top.id) !== index.get(top.id)) continue;
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.push(member);
        if (member === top.id) break;
      }
      const loops = component.length > 1 || next(top.id).includes(top.id);
      if (loops) for (const member of component) found.add(member);
    }
  }
  return found;
}

/**
 * What a non-interrupting boundary event of the container leads to: it can fire while its activity runs,
 * and again, so its path can run more than once.
 */
function afterNonInterruptingBoundaries(graph: ProcessGraph, container: string): ReadonlySet<string> {
  const reached = new Set<string>();
  const queue: string[] = [];
  for (const id of graph.members.get(container) ?? []) {
    const node = graph.node(id);
    if (node.type === NodeType.BoundaryEvent && !node.interrupting && node.event.kind !== 'compensate') {
      queue.push(id);
    }
  }
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (reached.has(id)) continue;
    reached.add(id);
    queue.push(...graph.successors(id), ...graph.boundaries(id).map((boundary) => boundary.id));
  }
  return reached;
}
