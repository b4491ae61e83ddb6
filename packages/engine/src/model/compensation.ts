/**
 * The compensation and transaction rules of one container (BPMN 2.0 §10.6, §13.5): a compensation boundary
 * event is associated with exactly one compensation handler beside it and leaves by no flow; a handler
 * (`isForCompensation`) is reached only that way; a compensation throw names an activity of its own scope; a
 * cancel end event's transaction has a cancel boundary, and a cancel boundary sits on a transaction.
 *
 * @module
 */
import type { ContainerView } from './flows.js';
import type { IssueCollector } from './issues.js';
import { child, children, idOf, type ModdleElement } from './moddle.js';
import type { BoundaryEventNode, Node } from './node-types.js';
import { NodeType } from './types.js';

/** `bpmn:Association`s of a container: target ids by source id (either way round, as modelers draw them). */
export function associationsOf(container: ModdleElement): Map<string, string[]> {
  const links = new Map<string, string[]>();
  const add = (from: string, to: string) => links.set(from, [...(links.get(from) ?? []), to]);
  for (const artifact of children(container, 'artifacts')) {
    if (artifact.$type !== 'bpmn:Association') continue;
    const source = child(artifact, 'sourceRef');
    const target = child(artifact, 'targetRef');
    const [from, to] = [source ? idOf(source) : undefined, target ? idOf(target) : undefined];
    if (!from || !to) continue;
    add(from, to);
    add(to, from);
  }
  return links;
}

/**
 * Checks the container's compensation and cancel rules and links each compensation boundary to its handler;
 * returns the compensable activities of the container, with their handlers.
 */
export function checkCompensation(
  view: ContainerView,
  associations: ReadonlyMap<string, string[]>,
  inEventSubProcess: boolean,
  issues: IssueCollector,
): Map<string, string> {
  const compensable = new Map<string, string>();
  const handled = new Set<string>();
  for (const { node, element } of view.nodes.values()) {
    if (node.type !== NodeType.BoundaryEvent) continue;
    if (node.event.kind === 'compensate') {
      const handler = handlerOf(view, node, element, associations, issues);
      if (!handler) continue;
      if (compensable.has(node.attachedTo)) {
        issues.error(element, `activity "${node.attachedTo}" has more than one compensation boundary event`);
        continue;
      }
      node.handler = handler;
      handled.add(handler);
      compensable.set(node.attachedTo, handler);
    } else if (node.event.kind === 'cancel') {
      const target = view.nodes.get(node.attachedTo)?.node;
      if (target && !(target.type === NodeType.SubProcess && target.transaction)) {
        issues.error(element, `a cancel boundary event belongs on a bpmn:transaction, not on "${node.attachedTo}"`);
      }
    }
  }
  for (const { node, element } of view.nodes.values()) {
    if (node.forCompensation) {
      if (node.incoming.length > 0 || node.outgoing.length > 0) {
        issues.error(
          element,
          'a compensation handler (isForCompensation) cannot have sequence flows: a compensation boundary event runs it',
        );
      } else if (!handled.has(node.id)) {
        issues.error(
          element,
          'no compensation boundary event is associated with this compensation handler (isForCompensation): nothing would run it',
        );
      }
    }
    // A throw in an event sub-process compensates its parent's activities: checked against those at run time.
    const throwing = node.type === NodeType.EndEvent || node.type === NodeType.IntermediateThrowEvent;
    if (throwing && node.event?.kind === 'compensate' && !inEventSubProcess) {
      checkThrow(view, node, node.event.activity, element, issues);
    }
  }
  return compensable;
}

/** A transaction with a cancel end event inside needs a cancel boundary to leave by. */
export function checkTransactions(view: ContainerView, cancels: ReadonlySet<string>, issues: IssueCollector): void {
  for (const { node, element } of view.nodes.values()) {
    if (node.type !== NodeType.SubProcess || !node.transaction || !cancels.has(node.id)) continue;
    const boundary = [...view.nodes.values()].some(
      ({ node: other }) =>
        other.type === NodeType.BoundaryEvent && other.attachedTo === node.id && other.event.kind === 'cancel',
    );
    if (!boundary) {
      issues.error(
        element,
        'a bpmn:transaction with a cancel end event needs a cancel boundary event to leave by when it is cancelled',
      );
    }
  }
}

function handlerOf(
  view: ContainerView,
  boundary: BoundaryEventNode,
  element: ModdleElement,
  associations: ReadonlyMap<string, string[]>,
  issues: IssueCollector,
): string | null {
  if ((view.declared.get(boundary.id) ?? []).length > 0) {
    issues.error(
      element,
      'a compensation boundary event cannot have outgoing sequence flows: it is associated with its handler',
    );
    return null;
  }
  const handlers = (associations.get(boundary.id) ?? []).filter((id) => view.nodes.get(id)?.node.forCompensation);
  if (handlers.length !== 1) {
    issues.error(
      element,
      handlers.length === 0
        ? `a compensation boundary event needs a bpmn:association to its compensation handler (an activity with isForCompensation="true" in "${view.id}")`
        : `a compensation boundary event is associated with ${handlers.length} compensation handlers (${handlers.join(', ')}); give it one`,
    );
    return null;
  }
  return handlers[0]!;
}

function checkThrow(
  view: ContainerView,
  node: Node,
  activity: string | null,
  element: ModdleElement,
  issues: IssueCollector,
): void {
  if (activity === null) return;
  const target = view.nodes.get(activity)?.node;
  if (!target) {
    issues.error(
      element,
      `activityRef "${activity}" is not an activity in the same scope "${view.id}" as the compensation throw "${node.id}"`,
    );
  } else if (target.forCompensation) {
    issues.error(element, `activityRef "${activity}" is a compensation handler: name the activity it compensates`);
  }
}
