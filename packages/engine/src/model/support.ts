import type { ModelIssue } from '../common/errors.js';
import type { Node } from './node-types.js';
import type { ProcessDef } from './process-types.js';
import type { EventDefinition } from './types.js';

/**
 * What the runtime executes today. The compiler understands more of BPMN than the runtime runs; this gate
 * turns everything else into a `ModelError` naming the element ("not supported yet"), so a model never
 * starts with an element that would be silently skipped. Widen it as the runtime grows.
 */
const SUPPORTED: Record<string, ReadonlySet<string>> = {
  startEvent: new Set(['none', 'message', 'signal', 'timer', 'conditional']),
  eventSubProcessStart: new Set(['timer', 'message', 'signal', 'error', 'escalation', 'compensate', 'conditional']),
  endEvent: new Set(['none', 'error', 'escalation', 'signal', 'message', 'compensate', 'cancel']),
  intermediateCatchEvent: new Set(['timer', 'message', 'signal', 'link', 'conditional']),
  intermediateThrowEvent: new Set(['none', 'signal', 'escalation', 'link', 'message', 'compensate']),
  boundaryEvent: new Set(['timer', 'message', 'signal', 'error', 'escalation', 'compensate', 'cancel', 'conditional']),
  receiveTask: new Set(['message']),
  sendTask: new Set(['none']),
  eventBasedGateway: new Set(['none']),
  eventSubProcess: new Set(['none']),
};

const BPMN_TYPE: Record<string, string> = {
  startEvent: 'bpmn:StartEvent',
  eventSubProcessStart: 'bpmn:StartEvent',
  endEvent: 'bpmn:EndEvent',
  intermediateCatchEvent: 'bpmn:IntermediateCatchEvent',
  intermediateThrowEvent: 'bpmn:IntermediateThrowEvent',
  boundaryEvent: 'bpmn:BoundaryEvent',
  receiveTask: 'bpmn:ReceiveTask',
  sendTask: 'bpmn:SendTask',
  eventBasedGateway: 'bpmn:EventBasedGateway',
  eventSubProcess: 'bpmn:SubProcess',
};

const DESCRIBED: Record<string, string> = {
  eventSubProcess: 'an event sub-process (bpmn:SubProcess triggeredByEvent)',
};
const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function eventKind(event: EventDefinition | undefined): string {
  return event ? event.kind : 'none';
}

function check(node: Node, process: ProcessDef): { key: string; kind: string } | null {
  switch (node.type) {
    case 'startEvent': {
      const container = process.nodes.get(node.container);
      const inEventSubProcess = container?.type === 'subProcess' && container.triggeredByEvent === true;
      return { key: inEventSubProcess ? 'eventSubProcessStart' : 'startEvent', kind: eventKind(node.event) };
    }
    case 'endEvent':
    case 'intermediateThrowEvent':
      return { key: node.type, kind: eventKind(node.event) };
    case 'intermediateCatchEvent':
    case 'boundaryEvent':
    case 'receiveTask':
      return { key: node.type, kind: eventKind(node.event) };
    case 'sendTask':
    case 'eventBasedGateway':
      return { key: node.type, kind: 'none' };
    case 'subProcess':
      return node.triggeredByEvent ? { key: 'eventSubProcess', kind: 'none' } : null;
    default:
      return null;
  }
}

/** The issues of a compiled process that the runtime cannot execute yet (empty when it runs all of it). */
export function unsupportedIssues(process: ProcessDef): ModelIssue[] {
  const issues: ModelIssue[] = [];
  for (const node of process.nodes.values()) {
    const found = check(node, process);
    if (!found || SUPPORTED[found.key]?.has(found.kind)) continue;
    const what =
      found.kind === 'none'
        ? (DESCRIBED[found.key] ?? BPMN_TYPE[found.key])
        : `${BPMN_TYPE[found.key]} with ${article(found.kind)} ${found.kind} event definition`;
    issues.push({
      elementId: node.id,
      elementType: BPMN_TYPE[found.key] ?? node.type,
      message: `${what} is not supported yet`,
    });
  }
  return issues;
}
