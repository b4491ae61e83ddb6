import type { Variables } from '@thresher/checkpoint';
import { ExpressionError } from './errors.js';
import { evaluateCondition } from './feel.js';
import type { Flow, Node, ProcessDef } from './model/types.js';

/** Why no flow could be chosen; the loop turns it into an incident on the element. */
export class FlowError extends Error {
  constructor(
    readonly kind: 'no-flow-taken' | 'expression-failed',
    message: string,
  ) {
    super(message);
  }
}

function flow(process: ProcessDef, id: string): Flow {
  const found = process.flows.get(id);
  if (!found) throw new Error(`flow ${id} is missing from process ${process.id}`);
  return found;
}

function holds(f: Flow, variables: Variables): boolean {
  if (f.condition === null) return true;
  try {
    return evaluateCondition(f.condition, variables);
  } catch (error) {
    const reason = error instanceof ExpressionError ? error.message : String(error);
    throw new FlowError('expression-failed', `condition of flow "${f.id}" failed: ${reason}`);
  }
}

/**
 * The flows a track takes when it leaves `node`: the first true condition of an exclusive gateway, every
 * true condition of an inclusive gateway, all flows of a parallel gateway; the default when nothing holds.
 * An activity takes its unconditional flows and those whose condition holds (BPMN's conditional flows).
 */
export function chooseFlows(process: ProcessDef, node: Node, variables: Variables): Flow[] {
  const outgoing = node.outgoing.map((id) => flow(process, id));
  if (node.type === 'parallelGateway') return outgoing;
  const defaultId = 'defaultFlow' in node ? node.defaultFlow : null;
  const candidates = outgoing.filter((f) => f.id !== defaultId);
  let taken: Flow[];
  if (node.type === 'exclusiveGateway') {
    const first = candidates.find((f) => holds(f, variables));
    taken = first ? [first] : [];
  } else {
    taken = candidates.filter((f) => holds(f, variables));
  }
  if (taken.length > 0 || outgoing.length === 0) return taken;
  if (defaultId) return [flow(process, defaultId)];
  throw new FlowError(
    'no-flow-taken',
    `no outgoing flow of "${node.id}" has a condition that holds, and there is no default flow`,
  );
}
