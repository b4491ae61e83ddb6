/**
 * The order a container's elements run in, as the touchpoint list gives it: a topological order of the
 * sequence-flow graph from the container's starts (back edges ignored, branches in document order, so
 * what follows a join comes after every branch), then what its activities' boundary events lead to, then
 * its event sub-processes, then whatever no start reaches, in document order.
 *
 * @module
 */
import { isEventSubProcess, type ProcessGraph } from './graph.js';

/** The elements of one container (not those inside its sub-processes) in run order; each exactly once. */
export function runOrder(graph: ProcessGraph, containerId: string): string[] {
  const visited = new Set<string>();
  const order = withBoundaryPaths(graph, reversePostorder(graph, graph.starts(containerId), visited), visited);
  const members = graph.members.get(containerId) ?? [];
  for (const id of members) {
    if (visited.has(id) || !isEventSubProcess(graph.node(id))) continue;
    visited.add(id);
    order.push(id);
  }
  const unreached = members.filter((id) => !visited.has(id));
  order.push(...withBoundaryPaths(graph, reversePostorder(graph, unreached, visited), visited));
  return order;
}

/**
 * `order` followed by what the boundary events of its activities lead to, round after round (a boundary
 * path may reach activities with boundaries of their own).
 */
function withBoundaryPaths(graph: ProcessGraph, order: string[], visited: Set<string>): string[] {
  for (let from = 0; from < order.length; ) {
    const roots = order.slice(from).flatMap((id) => graph.boundaries(id).map((boundary) => boundary.id));
    from = order.length;
    order.push(...reversePostorder(graph, roots, visited));
  }
  return order;
}

/**
 * Reverse postorder of a depth-first walk from `roots`, skipping (and marking) `visited`: a topological
 * order with back edges ignored. Successors are walked last-first and roots last-first, so the first branch
 * (and the first root) comes first, and an element two branches reach comes after both.
 */
function reversePostorder(graph: ProcessGraph, roots: readonly string[], visited: Set<string>): string[] {
  const postorder: string[] = [];
  // Iterative, so a long chain of elements cannot exhaust the stack.
  for (const root of [...roots].reverse()) {
    if (visited.has(root)) continue;
    visited.add(root);
    const stack = [{ id: root, next: [...graph.successors(root)] }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const child = top.next.pop();
      if (child === undefined) {
        postorder.push(top.id);
        stack.pop();
      } else if (!visited.has(child)) {
        visited.add(child);
        stack.push({ id: child, next: [...graph.successors(child)] });
      }
    }
  }
  return postorder.reverse();
}
