/**
 * Reads what only describes an element for people, into the IR beside what it runs: its
 * `thresher:touchpoint` mark (checked against the direction its type declares, which is here too, for
 * `touchpoints/declaration.ts` to build on) and its documentation.
 *
 * @module
 */
import type { TouchpointDirection, TouchpointMark } from '../common/touchpoint-types.js';
import type { IssueCollector } from './issues.js';
import { children, extensions, type ModdleElement, str } from './moddle.js';
import type { Node } from './node-types.js';
import { NodeType } from './types.js';

const DIRECTIONS: ReadonlySet<string> = new Set<TouchpointDirection>(['inbound', 'outbound', 'internal']);

/** The extension type the mark is read as (the element's `used` list names it, so it is not refused). */
export const TOUCHPOINT_EXTENSION = 'thresher:Touchpoint';

/**
 * The element's `thresher:touchpoint`, checked against its compiled node, or undefined when it has none
 * (or an issue was recorded). An empty `<thresher:touchpoint/>` is a mark: `{}`.
 */
export function readTouchpointMark(
  element: ModdleElement,
  node: Node,
  issues: IssueCollector,
): TouchpointMark | undefined {
  // A second mark is refused by `readExtensions` already; the first one is read.
  const found = extensions(element).find((extension) => extension.$type === TOUCHPOINT_EXTENSION);
  if (!found) return undefined;
  const mark: TouchpointMark = {};
  let ok = true;
  const enabled = str(found, 'enabled')?.trim();
  if (enabled === 'true' || enabled === 'false') mark.enabled = enabled === 'true';
  else if (enabled !== undefined) {
    issues.error(element, `thresher:touchpoint enabled="${enabled}" is not "true" or "false"`);
    ok = false;
  }
  for (const property of ['label', 'description'] as const) {
    const text = str(found, property)?.trim();
    if (text) mark[property] = text;
  }
  const direction = str(found, 'direction')?.trim();
  if (direction !== undefined && !DIRECTIONS.has(direction)) {
    issues.error(element, `thresher:touchpoint direction="${direction}" is not inbound, outbound or internal`);
    ok = false;
  } else if (direction !== undefined) {
    mark.direction = direction as TouchpointDirection;
  }
  if (mark.enabled === false && (mark.label || mark.description || direction !== undefined)) {
    issues.error(
      element,
      'thresher:touchpoint enabled="false" switches the touchpoint off: it takes no label, description or direction; remove them or the enabled="false"',
    );
    ok = false;
  }
  const declared = declaredDirection(node);
  if (ok && declared !== undefined && mark.direction !== undefined && mark.direction !== declared) {
    issues.error(
      element,
      `thresher:touchpoint direction="${mark.direction}" on ${element.$type}: its type is ${declared}, which a mark cannot change; remove the direction`,
    );
    ok = false;
  }
  return ok ? mark : undefined;
}

/** The element's first `bpmn:documentation` text, trimmed; undefined when it has none (or only blanks). */
export function documentationOf(element: ModdleElement): string | undefined {
  const [first] = children(element, 'documentation');
  const text = first ? str(first, 'text')?.trim() : undefined;
  return text || undefined;
}

/**
 * The direction an element's type declares, whatever its mark says; undefined for a type that declares
 * none. Boundary events declare none (the run goes on without them), nor do a process's start events
 * (they start the run; an event sub-process's start event is a wait inside it).
 */
export function declaredDirection(node: Node): TouchpointDirection | undefined {
  switch (node.type) {
    case NodeType.ReceiveTask:
      return 'inbound';
    case NodeType.IntermediateCatchEvent:
      return waitsForCall(node) ? 'inbound' : undefined;
    case NodeType.StartEvent:
      // Only an event sub-process's start event carries `interrupting`.
      return node.interrupting !== undefined && waitsForCall(node) ? 'inbound' : undefined;
    case NodeType.SendTask:
      return 'outbound';
    case NodeType.IntermediateThrowEvent:
    case NodeType.EndEvent:
      return node.event?.kind === 'message' ? 'outbound' : undefined;
    case NodeType.UserTask:
    case NodeType.ManualTask:
      return 'internal';
    default:
      return undefined;
  }
}

function waitsForCall(node: Node): boolean {
  const kind = 'event' in node ? node.event?.kind : undefined;
  return kind === 'message' || kind === 'signal';
}
