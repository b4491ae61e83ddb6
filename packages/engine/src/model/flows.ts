/**
 * Sequence flows: endpoints in the same container, FEEL conditions only where a gateway decides,
 * and the gateway rules that depend on the flows (an outgoing flow, a default that is one of them).
 *
 * @module
 */
import { compileRequiredExpression } from './expression.js';
import { readExtensions } from './extensions.js';
import { isJuel } from './foreign.js';
import type { IssueCollector } from './issues.js';
import { child, extensions, idOf, type ModdleElement, str } from './moddle.js';
import type { Node } from './node-types.js';
import type { Flow } from './process-types.js';
import type { UnresolvedReferences } from './read-warnings.js';
import { NodeType } from './types.js';

/** One container's flow nodes, as the flow checks need them. */
export interface ContainerView {
  id: string;
  /** Compiled nodes directly in this container, with their moddle elements. */
  nodes: Map<string, { node: Node; element: ModdleElement }>;
  /** Ids of flow nodes in this container that were refused (already reported). */
  refused: Set<string>;
  /** Flow ids by the id their `sourceRef` names, compiled or not: refused flows still count as outgoing. */
  declared: Map<string, string[]>;
}

/**
 * Compiles a sequence flow and links it into its endpoints' `outgoing` / `incoming`.
 *
 * @returns the flow, or null when an issue was recorded (or an endpoint was already refused).
 */
export function compileFlow(
  element: ModdleElement,
  view: ContainerView,
  unresolved: UnresolvedReferences,
  issues: IssueCollector,
): Flow | null {
  const id = idOf(element);
  if (!id) {
    const source = idOf(child(element, 'sourceRef') ?? element) ?? '?';
    const target = idOf(child(element, 'targetRef') ?? element) ?? '?';
    const line = issues.lines.lineOfTagWithoutId('sequenceFlow', { sourceRef: source, targetRef: target });
    const message = `the bpmn:SequenceFlow from "${source}" to "${target}" has no id: give it one, e.g. id="Flow_${source}_${target}"`;
    issues.errorAt(null, element.$type, message, line);
    return null;
  }
  const sourceId = idOf(child(element, 'sourceRef') ?? element);
  if (sourceId !== undefined && sourceId !== id)
    view.declared.set(sourceId, [...(view.declared.get(sourceId) ?? []), id]);
  const source = endpoint(element, 'sourceRef', view, unresolved, issues);
  const target = endpoint(element, 'targetRef', view, unresolved, issues);
  const condition = conditionOf(element, issues);
  checkFlowExtensions(element, issues);
  if (!source || !target || condition === undefined) return null;
  if (condition && !decides(source.node)) {
    const why =
      source.node.type === NodeType.ParallelGateway
        ? 'a bpmn:ParallelGateway takes every outgoing flow, so a condition on one is not allowed'
        : source.node.type === NodeType.EventBasedGateway
          ? 'a flow out of a bpmn:EventBasedGateway cannot have a condition: the first event to occur decides'
          : `a conditional flow out of ${source.element.$type} is not supported yet (exclusive and inclusive gateways decide)`;
    issues.error(element, why);
    return null;
  }
  const flow: Flow = {
    id,
    name: str(element, 'name') || null,
    source: source.node.id,
    target: target.node.id,
    condition,
  };
  source.node.outgoing.push(id);
  target.node.incoming.push(id);
  return flow;
}

/**
 * A sequence flow reads no extension of its own. Execution listeners are refused as Zeebe refuses them there;
 * any other Zeebe or Thresher extension is ignored, warned about or refused as `readExtensions` says.
 */
function checkFlowExtensions(element: ModdleElement, issues: IssueCollector): void {
  if (extensions(element).some((extension) => extension.$type === 'zeebe:ExecutionListeners')) {
    issues.error(
      element,
      'zeebe:executionListeners on a bpmn:SequenceFlow: Zeebe runs execution listeners on processes and flow nodes only, not on sequence flows; move them to the element the flow leads to',
    );
    return;
  }
  readExtensions(element, [], issues);
}

function decides(node: Node): boolean {
  return node.type === NodeType.ExclusiveGateway || node.type === NodeType.InclusiveGateway;
}

function endpoint(
  flow: ModdleElement,
  property: 'sourceRef' | 'targetRef',
  view: ContainerView,
  unresolved: UnresolvedReferences,
  issues: IssueCollector,
): { node: Node; element: ModdleElement } | null {
  const ref = child(flow, property);
  if (!ref) {
    // A dangling reference was reported when the XML was read; only an absent one is new.
    if (!unresolved.get(flow)?.has(`bpmn:${property}`)) issues.error(flow, `bpmn:SequenceFlow has no ${property}`);
    return null;
  }
  const refId = idOf(ref) ?? '';
  const found = view.nodes.get(refId);
  if (found) return found;
  if (!view.refused.has(refId)) {
    issues.error(
      flow,
      `${property} "${refId}" (${ref.$type}) is not a flow node in the same container "${view.id}" as the flow`,
    );
  }
  return null;
}

/** The flow's condition: null when unconditional, undefined when it is there but unusable. */
function conditionOf(flow: ModdleElement, issues: IssueCollector): Flow['condition'] | undefined {
  const expression = child(flow, 'conditionExpression');
  if (!expression) return null;
  const language = str(expression, 'language');
  const body = (str(expression, 'body') ?? '').trim();
  // A JUEL body (`${…}`) is another engine's: `checkForeignExtensions` names it, once.
  if (isJuel(body)) return undefined;
  if (language && !/feel/i.test(language)) {
    issues.error(flow, `condition language "${language}" is not supported (Thresher evaluates FEEL)`);
    return undefined;
  }
  return compileRequiredExpression(body, flow, 'condition', issues) ?? undefined;
}

/** Checks the rules that need a container's flows in place: gateways, starts and ends. */
export function checkFlowRules(view: ContainerView, flows: ReadonlyMap<string, Flow>, issues: IssueCollector): void {
  for (const { node, element } of view.nodes.values()) {
    switch (node.type) {
      case NodeType.StartEvent:
        if (node.incoming.length > 0) issues.error(element, 'a start event cannot have incoming sequence flows');
        break;
      case NodeType.EndEvent:
      case NodeType.TerminateEndEvent:
        if (node.outgoing.length > 0) issues.error(element, 'an end event cannot have outgoing sequence flows');
        break;
      case NodeType.ExclusiveGateway:
      case NodeType.InclusiveGateway:
      case NodeType.ParallelGateway: {
        // Flows refused for their own reasons were reported already; they still count here.
        const declared = view.declared.get(node.id) ?? [];
        if (declared.length === 0) issues.error(element, `${element.$type} has no outgoing sequence flow`);
        if (node.defaultFlow === null) break;
        if (!declared.includes(node.defaultFlow)) {
          issues.error(element, `default flow "${node.defaultFlow}" is not one of the gateway's outgoing flows`);
        } else if (flows.get(node.defaultFlow)?.condition) {
          // Zeebe deploys it and never evaluates the condition: the default flow is taken when no other is.
          const flow = flows.get(node.defaultFlow)!;
          issues.warn(
            node.id,
            `the condition "=${flow.condition!.source}" of default flow "${flow.id}" is ignored: a default flow is taken when no other flow's condition holds, as in Zeebe`,
          );
          flow.condition = null;
        }
        break;
      }
      default:
        break;
    }
  }
}
