/**
 * `zeebe:executionListeners` (Camunda 8.6+): jobs of their own kind that run, one after the other, when an
 * element (or the process) starts or ends. The rules are Zeebe's (`ExecutionListenersValidator` and the
 * start, boundary, end event and gateway validators of camunda/zeebe's bpmn-model): which elements take
 * which listeners, and no two listeners of one element alike.
 *
 * @module
 */
import { readHeaders } from './extensions.js';
import type { IssueCollector } from './issues.js';
import { readJobValues } from './job-values.js';
import { child, children, extensions, type ModdleElement, str } from './moddle.js';
import type { Node } from './node-types.js';
import type { ExecutionListener, ExecutionListeners, ListenerEvent } from './types.js';

/** The extension element that holds them. */
export const LISTENERS_EXTENSION = 'zeebe:ExecutionListeners';

const EVENTS: readonly ListenerEvent[] = ['start', 'end'];

/**
 * The execution listeners of `element`, compiled into `node` (a flow node) or for the process (`'process'`),
 * with Zeebe's refusals recorded in `issues`; undefined when it has none, or when an issue was recorded.
 */
export function readListeners(
  element: ModdleElement,
  node: Node | 'process',
  issues: IssueCollector,
): ExecutionListeners | undefined {
  const holder = extensions(element).find((extension) => extension.$type === LISTENERS_EXTENSION);
  if (!holder) return undefined;
  const listeners: ExecutionListeners = {};
  const seen = new Map<string, number>();
  let ok = true;
  for (const listener of children(holder, 'listeners')) {
    const event = str(listener, 'eventType')?.trim() ?? '';
    const type = str(listener, 'type')?.trim() ?? '';
    const compiled = compileListener(element, listener, event, type, issues);
    if (!compiled) {
      ok = false;
      continue;
    }
    // Zeebe tells listeners apart by (eventType, type) as written: two alike would run the same job twice.
    const key = `${event}|${type}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const list = listeners[event as ListenerEvent] ?? [];
    list.push(compiled);
    listeners[event as ListenerEvent] = list;
  }
  for (const [key, count] of seen) {
    if (count < 2) continue;
    const [event, type] = key.split('|');
    issues.error(
      element,
      `${count} zeebe:executionListener elements with eventType="${event}" and type="${type}": an element's listeners must differ in event type or type, as in Zeebe`,
    );
    ok = false;
  }
  for (const event of EVENTS) {
    const why = listeners[event] ? refusal(element, node, event) : null;
    if (!why) continue;
    issues.error(element, `zeebe:executionListener eventType="${event}" on ${element.$type}: ${why}`);
    ok = false;
  }
  return ok && (listeners.start || listeners.end) ? listeners : undefined;
}

/** One listener, or null when an issue was recorded. */
function compileListener(
  element: ModdleElement,
  listener: ModdleElement,
  event: string,
  type: string,
  issues: IssueCollector,
): ExecutionListener | null {
  if (!EVENTS.includes(event as ListenerEvent)) {
    const found = event === '' ? 'has no eventType' : `has eventType="${event}"`;
    issues.error(element, `a zeebe:executionListener ${found}: Thresher runs start and end listeners`);
    return null;
  }
  if (type === '') {
    issues.error(
      element,
      `a zeebe:executionListener eventType="${event}" has no type: name the job type its handler takes`,
    );
    return null;
  }
  const retries = str(listener, 'retries')?.trim();
  const values = readJobValues(element, type, retries || undefined, 'zeebe:executionListener', issues);
  if (!values) return null;
  const headers = readHeaders(child(listener, 'headers'));
  return Object.keys(headers).length > 0 ? { ...values, headers } : values;
}

/** Why Zeebe takes no `event` listener on this element, or null when it does. */
function refusal(element: ModdleElement, node: Node | 'process', event: ListenerEvent): string | null {
  if (node === 'process') return null;
  if (element.$type === 'bpmn:Transaction') {
    return 'Zeebe runs no transactions, so it defines no listeners for them; put them on the elements inside';
  }
  switch (node.type) {
    case 'startEvent':
      return event === 'start'
        ? 'Zeebe runs no start listeners on start events (the event has already happened); use a start listener of the process or sub-process'
        : null;
    case 'boundaryEvent':
      if (node.event.kind === 'compensate') {
        return 'Zeebe runs no listeners on compensation boundary events; put them on the compensation handler';
      }
      return event === 'start'
        ? 'Zeebe runs no start listeners on boundary events (the event has already happened); use a start listener of the activity it is attached to'
        : null;
    case 'endEvent':
      if (event === 'end' && node.event?.kind === 'error') {
        return 'Zeebe runs no end listeners on error end events (the error ends the element where it is thrown); put them on the element that catches it';
      }
      if (event === 'end' && node.event?.kind === 'cancel') {
        return 'a cancel end event ends as its transaction is interrupted, so it never completes (Zeebe runs no transactions); put them on the element its cancel boundary leads to';
      }
      return null;
    case 'exclusiveGateway':
    case 'parallelGateway':
    case 'inclusiveGateway':
    case 'eventBasedGateway':
      return event === 'end'
        ? 'Zeebe runs no end listeners on gateways; use a start listener of the element after it'
        : null;
    default:
      return null;
  }
}
