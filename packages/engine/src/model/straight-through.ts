/**
 * Straight-through processing loops, refused at deploy as Zeebe refuses them: a cycle of elements that run
 * without waiting (undefined and manual tasks, gateways, none start and end events, sub-processes, call
 * activities) that contains a task, a manual task or a call activity would spin for ever once entered. The
 * rule and its element sets are Zeebe's (its deployment validator of the same name); a loop that waits
 * somewhere (a job, a user task, a timer, a message) is not one. What this cannot see at deploy (a loop
 * through script tasks or throw events, or through a call resolved at run time) the runtime's step limit
 * stops instead. Unlike Zeebe's own search, which follows every path, loops are found through the graph's
 * strongly connected components, so no model can make a deploy take long.
 *
 * @module
 */
import type { ModelIssue } from '../common/errors.js';
import type { Node } from './node-types.js';
import type { ProcessDef } from './process-types.js';
import { NodeType } from './types.js';

/** Elements a run passes through without waiting. */
const STRAIGHT_THROUGH: ReadonlySet<string> = new Set([
  NodeType.ManualTask,
  NodeType.Task,
  NodeType.ExclusiveGateway,
  NodeType.InclusiveGateway,
  NodeType.ParallelGateway,
  NodeType.StartEvent,
  NodeType.EndEvent,
  NodeType.SubProcess,
  NodeType.CallActivity,
]);

/** A loop is refused only when it holds one of these (a loop of gateways alone is not, as in Zeebe). */
const REJECTED: ReadonlySet<string> = new Set([NodeType.ManualTask, NodeType.Task, NodeType.CallActivity]);

/** The first straight-through processing loop of each process, as an issue naming its elements in order. */
export function straightThroughLoops(processes: ReadonlyMap<string, ProcessDef>): ModelIssue[] {
  const graph = new StraightGraph(processes);
  const issues: ModelIssue[] = [];
  for (const process of processes.values()) {
    const loop = graph.firstLoop(process);
    if (!loop) continue;
    const first = loop[0]!;
    issues.push({
      elementId: first.id,
      elementType: bpmnType(first),
      message: `a straight-through processing loop: ${loop.map((node) => node.id).join(' > ')} runs without ever waiting, so an instance entering it would never stop (Zeebe refuses it too); give it a wait (a user task, a timer, a message, a job) or a way out`,
    });
  }
  return issues;
}

/**
 * The elements a run passes through without waiting, and what each leads to. A loop is a cycle among them:
 * found through the graph's strongly connected components, so a large model costs time linear in its size.
 */
class StraightGraph {
  private readonly next = new Map<Node, Node[]>();
  private readonly component = new Map<Node, number>();

  constructor(processes: ReadonlyMap<string, ProcessDef>) {
    for (const process of processes.values()) {
      for (const node of process.nodes.values()) {
        if (!STRAIGHT_THROUGH.has(node.type)) continue;
        const targets = following(node, process, processes).filter((target) => STRAIGHT_THROUGH.has(target.type));
        this.next.set(node, targets);
      }
    }
    this.components();
  }

  /** The loop through the first rejected element (by id) of `process` that is on one, from it back to it. */
  firstLoop(process: ProcessDef): Node[] | undefined {
    const rejected = [...process.nodes.values()].filter((node) => REJECTED.has(node.type));
    rejected.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const node of rejected) {
      const loop = this.cycleThrough(node);
      if (loop) return loop;
    }
    return undefined;
  }

  /** The shortest cycle from `start` back to it within its component, or undefined when it is on none. */
  private cycleThrough(start: Node): Node[] | undefined {
    const component = this.component.get(start);
    const cameFrom = new Map<Node, Node>();
    const queue: Node[] = [start];
    for (let at = 0; at < queue.length; at++) {
      const node = queue[at]!;
      for (const target of this.next.get(node) ?? []) {
        if (this.component.get(target) !== component) continue;
        if (target === start) {
          const loop = [start];
          for (let back: Node | undefined = node; back !== start && back; back = cameFrom.get(back))
            loop.splice(1, 0, back);
          return [...loop, start];
        }
        if (cameFrom.has(target)) continue;
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
    return undefined;
  }

  /** Tarjan's strongly connected components, iteratively (a long chain must not overflow the stack). */
  private components(): void {
    const index = new Map<Node, number>();
    const low = new Map<Node, number>();
    const onStack = new Set<Node>();
    const stack: Node[] = [];
    let counter = 0;
    let components = 0;
    for (const root of this.next.keys()) {
      if (index.has(root)) continue;
      const work: { node: Node; edge: number }[] = [{ node: root, edge: 0 }];
      index.set(root, counter);
      low.set(root, counter++);
      stack.push(root);
      onStack.add(root);
      while (work.length > 0) {
        const frame = work[work.length - 1]!;
        const targets = this.next.get(frame.node) ?? [];
        if (frame.edge < targets.length) {
          const target = targets[frame.edge++]!;
          if (!index.has(target)) {
            index.set(target, counter);
            low.set(target, counter++);
            stack.push(target);
            onStack.add(target);
            work.push({ node: target, edge: 0 });
          } else if (onStack.has(target)) {
            low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
          }
          continue;
        }
        work.pop();
        const parent = work[work.length - 1];
        if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
        if (low.get(frame.node) !== index.get(frame.node)) continue;
        for (let member = stack.pop(); member; member = stack.pop()) {
          onStack.delete(member);
          this.component.set(member, components);
          if (member === frame.node) break;
        }
        components++;
      }
    }
  }
}

/** What a run reaches from `node` without waiting: its targets, a sub-process's start, a called process's start. */
function following(node: Node, process: ProcessDef, processes: ReadonlyMap<string, ProcessDef>): Node[] {
  const within = (ids: readonly string[], owner: ProcessDef): Node[] =>
    ids.flatMap((id) => {
      const found = owner.nodes.get(id);
      return found ? [found] : [];
    });
  if (node.type === NodeType.SubProcess) {
    return node.triggeredByEvent ? [] : within(node.adHoc ? node.adHoc.activatable : node.startNodes, process);
  }
  if (node.type === NodeType.CallActivity) {
    const called = staticProcessId(node.calledElement.source);
    const target = called === undefined ? undefined : processes.get(called);
    return target ? within(target.startNodes, target) : [];
  }
  if (node.outgoing.length > 0)
    return within(
      node.outgoing.map((id) => process.flows.get(id)!.target),
      process,
    );
  // An element with no way on ends its container: the run goes on after the sub-process that holds it.
  const container = process.nodes.get(node.container);
  return container?.type === NodeType.SubProcess
    ? within(
        container.outgoing.map((id) => process.flows.get(id)!.target),
        process,
      )
    : [];
}

/** A called process id known at deploy: a static value (a FEEL string literal), else undefined. */
function staticProcessId(source: string): string | undefined {
  if (!source.startsWith('"')) return undefined;
  try {
    const value: unknown = JSON.parse(source);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function bpmnType(node: Node): string {
  return `bpmn:${node.type.charAt(0).toUpperCase()}${node.type.slice(1)}`;
}
