/**
 * The static touchpoint list: every touchpoint of a process in run order, depth first through its
 * embedded and event sub-processes (never into a call activity: a called process is another run), with
 * what can be known before a run — how long it waits, whether every run reaches it, whether it repeats.
 *
 * @module
 */
import { NotFoundError } from '../common/errors.js';
import type { Touchpoint } from '../common/touchpoint-types.js';
import { isExpressionText } from '../model/expression.js';
import type { Node } from '../model/node-types.js';
import type { ProcessDef, ProcessModel } from '../model/process-types.js';
import { NodeType, type TimerSpec } from '../model/types.js';
import { parseDuration } from '../timers/duration.js';
import { touchpointOf } from './declaration.js';
import { type ProcessGraph, processGraph } from './graph.js';
import { pathFacts } from './paths.js';
import { runOrder } from './run-order.js';
import type { TouchpointListOptions } from './types.js';

/** One process's touchpoints, as a run of it plans and tracks them. */
export interface ProcessPlan {
  /** Its touchpoints in run order, `index` from 0, none `skipped`. */
  readonly list: readonly Touchpoint[];
  /** Element id → index in `list`. */
  readonly byElement: ReadonlyMap<string, number>;
  /**
   * The indexes of the touchpoints a token on this flow can still reach in the flow's container: its
   * target and what follows it, everything inside the sub-processes it enters, and the paths of the
   * boundary events of the activities it reaches. Empty for a flow the process does not have.
   */
  reachableFrom(flowId: string): ReadonlySet<number>;
}

const plans = new WeakMap<ProcessDef, ProcessPlan>();

/**
 * The plan of one process, computed once per compiled process (the IR is immutable).
 *
 * @example
 * ```ts
 * const plan = processPlan(model.processes.get('order')!);
 * plan.list[plan.byElement.get('approve')!]?.kind; // 'select'
 * ```
 */
export function processPlan(process: ProcessDef): ProcessPlan {
  let plan = plans.get(process);
  if (!plan) {
    plan = buildPlan(process);
    plans.set(process, plan);
  }
  return plan;
}

/**
 * Every touchpoint of a model's processes in run order: by default those of each executable process in
 * document order; `process` lists one process only; the processes `skip` names follow all the others,
 * `skipped`. `index` counts through the whole list.
 *
 * @throws NotFoundError when `process` or a `skip` id names no process of the model.
 * @example
 * ```ts
 * for (const touchpoint of touchpoints(model)) console.log(touchpoint.position, touchpoint.direction);
 * ```
 */
export function touchpoints(model: ProcessModel, options: TouchpointListOptions = {}): Touchpoint[] {
  const named = [...(options.process === undefined ? [] : [options.process]), ...(options.skip ?? [])];
  for (const id of named) if (!model.processes.has(id)) throw new NotFoundError('process', id);
  const processes =
    options.process === undefined
      ? [...model.processes.values()].filter((process) => process.executable)
      : [model.processes.get(options.process) as ProcessDef];
  const skip = new Set(options.skip ?? []);
  const ordered = [
    ...processes.filter((process) => !skip.has(process.id)),
    ...processes.filter((process) => skip.has(process.id)),
  ];
  const list: Touchpoint[] = [];
  for (const process of ordered) {
    const skipped = skip.has(process.id);
    for (const touchpoint of processPlan(process).list) list.push({ ...touchpoint, index: list.length, skipped });
  }
  return list;
}

function buildPlan(process: ProcessDef): ProcessPlan {
  const graph = processGraph(process);
  const facts = pathFacts(graph);
  const list: Touchpoint[] = [];
  const byElement = new Map<string, number>();
  const visit = (containerId: string): void => {
    for (const id of runOrder(graph, containerId)) {
      const node = graph.node(id);
      const declaration = touchpointOf(node);
      if (declaration) {
        byElement.set(id, list.length);
        list.push(
          Object.freeze({
            index: list.length,
            processId: process.id,
            position: graph.position(id),
            elementId: id,
            elementType: node.type,
            ...declaration,
            label: resolved(node.touchpoint?.label ?? node.name),
            description: resolved(node.touchpoint?.description ?? node.documentation),
            timeoutS: timeoutOf(graph, node),
            conditional: facts.conditional(id),
            repeated: facts.repeated(id),
            skipped: false,
          }),
        );
      }
      if (node.type === NodeType.SubProcess) visit(id);
    }
  };
  visit(process.id);
  const reachable = new Map<string, ReadonlySet<number>>();
  return Object.freeze({
    list: Object.freeze(list),
    byElement,
    reachableFrom(flowId: string) {
      let found = reachable.get(flowId);
      if (!found) {
        found = reachableIndexes(graph, byElement, flowId);
        reachable.set(flowId, found);
      }
      return found;
    },
  });
}

/** Text still holding an unresolved expression (`=…`) says nothing yet: null. */
function resolved(text: string | null | undefined): string | null {
  return text === null || text === undefined || isExpressionText(text) ? null : text;
}

/**
 * How long the touchpoint waits at most, in seconds: an interrupting boundary timer's static duration, or,
 * for a catch event after an event-based gateway, a sibling timer's. Null when there is none (or only
 * expressions, dates and cycles, which are not known before a run).
 */
function timeoutOf(graph: ProcessGraph, node: Node): number | null {
  const timers = graph
    .boundaries(node.id)
    .flatMap((boundary) => (boundary.interrupting && boundary.event.kind === 'timer' ? [boundary.event.timer] : []));
  for (const flowId of node.incoming) {
    const gateway = graph.process.nodes.get(graph.process.flows.get(flowId)?.source ?? '');
    if (gateway?.type !== NodeType.EventBasedGateway) continue;
    for (const sibling of graph.successors(gateway.id)) {
      const catcher = graph.node(sibling);
      if (sibling !== node.id && catcher.type === NodeType.IntermediateCatchEvent && catcher.event.kind === 'timer') {
        timers.push(catcher.event.timer);
      }
    }
  }
  const seconds = timers.map(staticSeconds).filter((value): value is number => value !== null);
  return seconds.length === 0 ? null : Math.min(...seconds);
}

/** A timer's duration in seconds when it is a literal (held as a FEEL string); else null. */
function staticSeconds(timer: TimerSpec): number | null {
  if (timer.kind !== 'duration' || !timer.expression.source.startsWith('"')) return null;
  try {
    const text = JSON.parse(timer.expression.source) as unknown;
    return typeof text === 'string' ? parseDuration(text.trim()) / 1000 : null;
  } catch {
    // A FEEL string JSON cannot read, or a duration the runtime refuses too: not known before a run.
    return null;
  }
}

function reachableIndexes(
  graph: ProcessGraph,
  byElement: ReadonlyMap<string, number>,
  flowId: string,
): ReadonlySet<number> {
  const found = new Set<number>();
  const flow = graph.process.flows.get(flowId);
  if (!flow) return found;
  const seen = new Set<string>();
  const queue = [flow.target];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const index = byElement.get(id);
    if (index !== undefined) found.add(index);
    const node = graph.node(id);
    // A sub-process entered: all it holds, its own boundary paths and event sub-processes included.
    if (node.type === NodeType.SubProcess) queue.push(...(graph.members.get(id) ?? []));
    // Flows never leave their container, so neither does the walk.
    queue.push(...graph.successors(id), ...graph.boundaries(id).map((boundary) => boundary.id));
  }
  return found;
}
