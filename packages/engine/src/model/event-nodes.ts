/**
 * Event nodes and the message-bound tasks: start, end, intermediate catch and throw, and boundary
 * events; receive and send tasks; the event-based gateway. Each event's definition is checked
 * against what its kind of event may carry (see `events.ts`).
 *
 * @module
 */

import { type EventContext, type EventKind, type EventRole, message } from './event-definitions.js';
import { allowedKinds, compileEvent, definitionKind, eventDefinitionOf } from './events.js';
import type { JobDefinition, NodeFrame } from './frames.js';
import { child, idOf, type ModdleElement } from './moddle.js';
import type { Node } from './node-types.js';
import { type EventDefinition, NodeType } from './types.js';

/** What an event element carries once its definition has been checked and compiled. */
type ReadEvent = { event: EventDefinition | undefined; terminate: boolean };

/**
 * Reads and compiles the definition of an event element in its role.
 *
 * @returns the event (undefined for a none event), or null when an issue was recorded.
 */
function readEvent(element: ModdleElement, role: EventRole, context: EventContext): ReadEvent | null {
  const definition = eventDefinitionOf(element, context.issues);
  if (definition === null) return null;
  if (definition === undefined) return { event: undefined, terminate: false };
  const kind = definitionKind(definition, element, context.issues);
  if (kind === null) return null;
  const { kinds, rule } = allowedKinds(role, context.scope);
  if (!kinds.has(kind)) {
    context.issues.error(element, `${element.$type} cannot have a ${definition.$type}: ${rule}`);
    return null;
  }
  if (kind === 'terminate') return { event: undefined, terminate: true };
  const event = compileEvent(definition, kind, element, role, context);
  return event ? { event, terminate: false } : null;
}

/** Whether a throwing event is a message throw (a job, as in Zeebe), before compiling it. */
export function isMessageThrow(element: ModdleElement): boolean {
  if (element.$type !== 'bpmn:EndEvent' && element.$type !== 'bpmn:IntermediateThrowEvent') return false;
  const definitions = element.eventDefinitions;
  return (
    Array.isArray(definitions) &&
    definitions.length === 1 &&
    (definitions[0] as ModdleElement | undefined)?.$type === 'bpmn:MessageEventDefinition'
  );
}

/** Compiles a start event; in an event sub-process it must carry an event and says whether it interrupts. */
export function startEvent(element: ModdleElement, frame: NodeFrame, context: EventContext): Node | null {
  const read = readEvent(element, 'start', context);
  if (!read) return null;
  if (context.scope !== 'eventSubProcess') {
    return read.event
      ? { ...frame, type: NodeType.StartEvent, event: read.event }
      : { ...frame, type: NodeType.StartEvent };
  }
  if (!read.event) {
    context.issues.error(
      element,
      'the start event of an event sub-process needs an event definition (message, timer, signal, error or escalation)',
    );
    return null;
  }
  const interrupting = element.isInterrupting !== false;
  if (!interrupting && read.event.kind === 'error') {
    context.issues.error(element, 'an error start event always interrupts: isInterrupting="false" is not allowed');
    return null;
  }
  return { ...frame, type: NodeType.StartEvent, event: read.event, interrupting };
}

/** Compiles an end event: none, terminate, error, escalation, signal, or message (a job). */
export function endEvent(
  element: ModdleElement,
  frame: NodeFrame,
  context: EventContext,
  job: JobDefinition | null,
): Node | null {
  const read = readEvent(element, 'end', context);
  if (!read) return null;
  if (read.terminate) return { ...frame, type: NodeType.TerminateEndEvent };
  if (!read.event) return { ...frame, type: NodeType.EndEvent };
  if (read.event.kind !== 'message') return { ...frame, type: NodeType.EndEvent, event: read.event };
  return job ? { ...frame, type: NodeType.EndEvent, event: read.event, ...jobFields(job) } : null;
}

/** Compiles an intermediate catch event (timer, message, signal or link). */
export function catchEvent(element: ModdleElement, frame: NodeFrame, context: EventContext): Node | null {
  const read = readEvent(element, 'catch', context);
  if (!read) return null;
  if (!read.event) {
    context.issues.error(
      element,
      'a bpmn:IntermediateCatchEvent needs an event definition (timer, message, signal or link)',
    );
    return null;
  }
  return { ...frame, type: NodeType.IntermediateCatchEvent, event: read.event };
}

/** Compiles an intermediate throw event: none (passes through), signal, escalation, link, or message (a job). */
export function throwEvent(
  element: ModdleElement,
  frame: NodeFrame,
  context: EventContext,
  job: JobDefinition | null,
): Node | null {
  const read = readEvent(element, 'throw', context);
  if (!read) return null;
  if (!read.event) return { ...frame, type: NodeType.IntermediateThrowEvent };
  if (read.event.kind !== 'message') return { ...frame, type: NodeType.IntermediateThrowEvent, event: read.event };
  return job ? { ...frame, type: NodeType.IntermediateThrowEvent, event: read.event, ...jobFields(job) } : null;
}

/** Compiles a boundary event; where it is attached is checked once its container is complete. */
export function boundaryEvent(element: ModdleElement, frame: NodeFrame, context: EventContext): Node | null {
  const attached = child(element, 'attachedToRef');
  const attachedTo = attached ? idOf(attached) : undefined;
  let ok = true;
  if (!attachedTo) {
    if (!context.unresolved.get(element)?.has('bpmn:attachedToRef')) {
      context.issues.error(element, 'a bpmn:BoundaryEvent needs an attachedToRef naming its activity');
    }
    ok = false;
  }
  const read = readEvent(element, 'boundary', context);
  if (!read || !ok || !attachedTo) return null;
  if (!read.event) {
    context.issues.error(
      element,
      'a bpmn:BoundaryEvent needs an event definition (timer, message, signal, error or escalation)',
    );
    return null;
  }
  const interrupting = element.cancelActivity !== false;
  if (!interrupting && read.event.kind === 'error') {
    context.issues.error(element, 'an error boundary event always interrupts: cancelActivity="false" is not allowed');
    return null;
  }
  return { ...frame, type: NodeType.BoundaryEvent, attachedTo, interrupting, event: read.event };
}

/** Compiles a receive task: it waits for its `messageRef`, correlated like a message catch event. */
export function receiveTask(element: ModdleElement, frame: NodeFrame, context: EventContext): Node | null {
  if (element.instantiate === true) {
    context.issues.error(
      element,
      'a bpmn:ReceiveTask that instantiates the process (instantiate="true") is not supported',
    );
    return null;
  }
  const event = message(element, element, context, { correlation: 'required', staticName: false, refRequired: true });
  return event ? { ...frame, type: NodeType.ReceiveTask, event } : null;
}

/** Compiles an event-based gateway; its flows are checked once its container is complete. */
export function eventBasedGateway(element: ModdleElement, frame: NodeFrame, context: EventContext): Node | null {
  if (element.instantiate === true) {
    context.issues.error(element, 'an event-based gateway that instantiates the process is not supported');
    return null;
  }
  if (element.eventGatewayType === 'Parallel') {
    context.issues.error(element, 'a parallel event-based gateway (eventGatewayType="Parallel") is not supported');
    return null;
  }
  return { ...frame, type: NodeType.EventBasedGateway };
}

/** The job fields of a message throw, `retries` only when given. */
function jobFields(job: JobDefinition): Omit<JobDefinition, 'retries'> & { retries?: number } {
  const { retries, ...fields } = job;
  return retries === undefined ? fields : { ...fields, retries };
}

/** Kinds of catch events an event-based gateway may lead to. */
export const GATEWAY_EVENT_KINDS: ReadonlySet<EventKind> = new Set(['timer', 'message', 'signal']);
