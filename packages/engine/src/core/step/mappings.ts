import type { Variables } from '@thresher/checkpoint';
import { ExpressionError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import type { Mapping } from '../../model/types.js';

/** A mapping whose expression failed; the loop raises it as an incident on the element. */
export class MappingError extends Error {}

/**
 * Evaluate mappings in order, as Zeebe does: each sees the view plus the targets mapped before it. A
 * dotted target (`customer.name`) sets a nested property, creating objects on the way.
 */
export function runMappings(mappings: readonly Mapping[], view: Variables, now: number): Variables {
  const out: Variables = {};
  for (const mapping of mappings) {
    let value: unknown;
    try {
      value = evaluate(mapping.source, { ...view, ...out }, now);
    } catch (error) {
      if (error instanceof ExpressionError) throw new MappingError(error.message, { cause: error });
      throw error;
    }
    assign(out, mapping.target, value);
  }
  return out;
}

function assign(target: Variables, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop()!;
  let cursor = target;
  for (const key of keys) {
    const next = cursor[key];
    cursor[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...next } : {};
    cursor = cursor[key] as Variables;
  }
  cursor[last] = value;
}
