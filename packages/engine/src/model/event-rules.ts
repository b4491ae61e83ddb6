/**
 * The event rules that need a whole container: boundary events sit on an activity beside them and
 * leave by a flow; event sub-processes have no flows; an event-based gateway leads only to events
 * it can wait for; every link throw has exactly one catch of its name.
 *
 * @module
 */
import { GATEWAY_EVENT_KINDS } from './event-nodes.js';
import type { ContainerView } from './flows.js';
import type { IssueCollector } from './issues.js';
import type { ModdleElement } from './moddle.js';
import type { Node } from './node-types.js';
import type { Flow } from './process-types.js';
import { NodeType } from './types.js';

/** Checks the event rules of one container whose nodes and flows are compiled. */
export function checkEventRules(view: ContainerView, flows: ReadonlyMap<string, Flow>, issues: IssueCollector): void {
  const linkCatches = new Map<string, Array<{ node: Node; element: ModdleElement }>>();
  const linkThrows: Array<{ name: string; element: ModdleElement }> = [];
  for (const entry of view.nodes.values()) {
    const { node, element } = entry;
    const declared = view.declared.get(node.id) ?? [];
    switch (node.type) {
      case NodeType.BoundaryEvent:
        if (node.incoming.length > 0) issues.error(element, 'a boundary event cannot have incoming sequence flows');
        // A compensation boundary leaves by no flow: its handler is associated with it (see compensation.ts).
        if (declared.length === 0 && node.event.kind !== 'compensate') {
          issues.error(element, 'a boundary event needs an outgoing sequence flow');
        }
        checkAttachment(view, node.attachedTo, element, issues);
        break;
      case NodeType.SubProcess:
        if (node.triggeredByEvent && (node.incoming.length > 0 || declared.length > 0)) {
          issues.error(element, 'an event sub-process cannot have incoming or outgoing sequence flows');
        }
        break;
      case NodeType.IntermediateCatchEvent:
        if (node.event.kind !== 'link') break;
        if (node.incoming.length > 0) issues.error(element, 'a link catch event cannot have incoming sequence flows');
        linkCatches.set(node.event.name, [...(linkCatches.get(node.event.name) ?? []), entry]);
        break;
      case NodeType.IntermediateThrowEvent:
        if (node.event?.kind !== 'link') break;
        if (declared.length > 0) issues.error(element, 'a link throw event cannot have outgoing sequence flows');
        linkThrows.push({ name: node.event.name, element });
        break;
      case NodeType.EventBasedGateway:
        checkEventGateway(view, declared, flows, element, issues);
        break;
      default:
        break;
    }
  }
  for (const [name, catches] of linkCatches) {
    for (const duplicate of catches.slice(1)) {
      issues.error(
        duplicate.element,
        `${catches.length} link catch events are named "${name}" in container "${view.id}"; a link name must be unique`,
      );
    }
  }
  for (const { name, element } of linkThrows) {
    if (!linkCatches.has(name)) {
      issues.error(element, `no link catch event is named "${name}" in the same container "${view.id}"`);
    }
  }
}

function checkAttachment(
  view: ContainerView,
  attachedTo: string,
  element: ModdleElement,
  issues: IssueCollector,
): void {
  const target = view.nodes.get(attachedTo);
  if (!target) {
    if (!view.refused.has(attachedTo)) {
      issues.error(element, `attachedToRef "${attachedTo}" is not an activity in the same container "${view.id}"`);
    }
    return;
  }
  if (!target.element.$instanceOf('bpmn:Activity')) {
    issues.error(element, `attachedToRef "${attachedTo}" is a ${target.element.$type}, not an activity`);
  } else if (target.node.type === NodeType.SubProcess && target.node.triggeredByEvent) {
    issues.error(element, `a boundary event cannot be attached to an event sub-process ("${attachedTo}")`);
  }
}

function checkEventGateway(
  view: ContainerView,
  declared: readonly string[],
  flows: ReadonlyMap<string, Flow>,
  element: ModdleElement,
  issues: IssueCollector,
): void {
  if (declared.length < 2) {
    issues.error(
      element,
      `a bpmn:EventBasedGateway needs at least two outgoing sequence flows, found ${declared.length}`,
    );
  }
  for (const flowId of declared) {
    const flow = flows.get(flowId);
    const target = flow ? view.nodes.get(flow.target) : undefined;
    if (!target) continue; // refused for its own reasons, already reported
    const { node } = target;
    const waits =
      node.type === NodeType.ReceiveTask ||
      (node.type === NodeType.IntermediateCatchEvent && GATEWAY_EVENT_KINDS.has(node.event.kind));
    if (!waits) {
      issues.error(
        element,
        `flow "${flowId}" leads to ${target.element.$type} "${node.id}"; an event-based gateway leads only to intermediate catch events (timer, message or signal) and receive tasks`,
      );
    } else if (node.incoming.length !== 1) {
      issues.error(
        target.element,
        `an event after an event-based gateway must have exactly one incoming sequence flow, found ${node.incoming.length}`,
      );
    }
  }
}
