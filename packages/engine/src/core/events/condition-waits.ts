/**
 * Arming a conditional event's wait (`conditions.ts` checks them): a `ConditionRecord`, and for a filtered
 * one the digests of the variables its filter watches. Apart from the checks, so arming needs no wake.
 *
 * @module
 */
import { type ConditionRecord, digestValue, type Variables } from '@thresher/checkpoint';
import type { Node } from '../../model/node-types.js';
import type { ConditionFilter, EventDefinition } from '../../model/types.js';
import { nextId, type StepContext } from '../step/context.js';

type Conditional = Extract<EventDefinition, { kind: 'conditional' }>;

/** Arm a waiting condition, first checked at the end of this step (a filtered one: once a variable changes). */
export function armCondition(
  ctx: StepContext,
  owner: ConditionRecord['owner'],
  node: Node,
  event: Conditional,
  view: Variables,
): void {
  const id = nextId(ctx, 'w');
  const record: ConditionRecord = { id, nodeId: node.id, owner, holding: false };
  if (event.filter) record.seen = snapshot(event.filter, view);
  ctx.state.write('conditions').set(id, record);
}

/** The digest of each filtered variable present in `view`. */
export function snapshot(filter: ConditionFilter, view: Variables): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const name of filter.variables ?? Object.keys(view)) {
    if (Object.hasOwn(view, name)) seen[name] = digestValue(view[name]);
  }
  return seen;
}
