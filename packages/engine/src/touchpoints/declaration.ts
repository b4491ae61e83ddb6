/**
 * Which elements are touchpoints: the direction each element type declares (`declaredDirection`), and the
 * one place `kind` and `via` derive from a direction. A `thresher:touchpoint` mark on the element (the
 * IR's `touchpoint`) relabels it, switches it off, or makes an element of an undeclared type one.
 *
 * @module
 */

import type { TouchpointDirection, TouchpointKind, TouchpointVia } from '../common/touchpoint-types.js';
import type { Node } from '../model/node-types.js';
import { isJobNode } from '../model/process-types.js';
import { declaredDirection } from '../model/touchpoint-mark.js';

// The directions element types declare are read by the compiler too (a mark may not change one), so they
// live beside it, in the model layer.
export { declaredDirection };

/** What makes an element a touchpoint, as `touchpointOf` gives it. */
export interface TouchpointDeclaration {
  direction: TouchpointDirection;
  kind: TouchpointKind;
  via: TouchpointVia;
}

/**
 * The element as a touchpoint: its type's declaration with its mark applied, or undefined when it is none
 * (an undeclared type without a mark, or a mark with `enabled="false"`). A mark on an undeclared type
 * makes it outbound unless the mark gives a direction.
 *
 * @example
 * ```ts
 * touchpointOf(process.nodes.get('approve')!); // { direction: 'internal', kind: 'select', via: null }
 * ```
 */
export function touchpointOf(node: Node): TouchpointDeclaration | undefined {
  const mark = node.touchpoint;
  if (mark?.enabled === false) return undefined;
  const declared = declaredDirection(node);
  if (declared === undefined && mark === undefined) return undefined;
  const direction = declared ?? mark?.direction ?? 'outbound';
  return { direction, kind: kindOf(direction), via: viaOf(direction, node) };
}

/** `select` for a person's choice, `wait` for everything else. */
export function kindOf(direction: TouchpointDirection): TouchpointKind {
  return direction === 'internal' ? 'select' : 'wait';
}

/** An inbound touchpoint is reached by its event's API, an outbound one by its job's handler. */
export function viaOf(direction: TouchpointDirection, node: Node): TouchpointVia {
  switch (direction) {
    case 'inbound': {
      const kind = 'event' in node ? node.event?.kind : undefined;
      return kind === 'message' || kind === 'signal' ? kind : null;
    }
    case 'outbound':
      return isJobNode(node) ? 'job' : null;
    case 'internal':
      return null;
  }
}
