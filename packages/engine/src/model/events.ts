/**
 * Event definitions (Zeebe flavour): which ones each kind of event may carry, and how each compiles
 * into an `EventDefinition` — timers with their literals checked, messages by `bpmn:Message name` and
 * `zeebe:subscription correlationKey`, signals by name, errors and escalations by code, links by name.
 *
 * @module
 */

import {
  code,
  compensate,
  conditional,
  type EventContext,
  type EventKind,
  type EventRole,
  link,
  message,
  type Scope,
  signal,
  timer,
} from './event-definitions.js';
import type { IssueCollector } from './issues.js';
import { children, idOf, type ModdleElement } from './moddle.js';
import type { EventDefinition } from './types.js';

const KINDS: Readonly<Record<string, EventKind>> = {
  'bpmn:TimerEventDefinition': 'timer',
  'bpmn:MessageEventDefinition': 'message',
  'bpmn:SignalEventDefinition': 'signal',
  'bpmn:ErrorEventDefinition': 'error',
  'bpmn:EscalationEventDefinition': 'escalation',
  'bpmn:LinkEventDefinition': 'link',
  'bpmn:TerminateEventDefinition': 'terminate',
  'bpmn:CompensateEventDefinition': 'compensate',
  'bpmn:CancelEventDefinition': 'cancel',
  'bpmn:ConditionalEventDefinition': 'conditional',
};

/**
 * The event definition of an event element.
 *
 * @returns the definition, undefined for a none event, or null when an issue was recorded (shared
 *   definitions, or more than one definition: multiple events are not supported).
 */
export function eventDefinitionOf(element: ModdleElement, issues: IssueCollector): ModdleElement | undefined | null {
  const shared = children(element, 'eventDefinitionRef');
  if (shared.length > 0) {
    const names = shared.map((definition) => `${definition.$type} "${idOf(definition) ?? '?'}"`).join(', ');
    issues.error(element, `shared event definitions (bpmn:eventDefinitionRef to ${names}) are not supported`);
    return null;
  }
  const definitions = children(element, 'eventDefinitions');
  if (definitions.length > 1) {
    const types = definitions.map((definition) => definition.$type).join(' and ');
    issues.error(
      element,
      `${element.$type} has ${definitions.length} event definitions (${types}): multiple events on one event are not supported`,
    );
    return null;
  }
  return definitions[0];
}

/** The kind of a definition, or null (with an issue) for one Thresher does not know. */
export function definitionKind(
  definition: ModdleElement,
  element: ModdleElement,
  issues: IssueCollector,
): EventKind | null {
  const kind = KINDS[definition.$type];
  if (kind) return kind;
  issues.error(element, `${element.$type} with ${definition.$type} is not supported yet`);
  return null;
}

/** The definition kinds an event of `role` may carry in `scope`, with the rule in words. */
export function allowedKinds(role: EventRole, scope: Scope): { kinds: ReadonlySet<EventKind>; rule: string } {
  switch (role) {
    case 'start':
      if (scope === 'eventSubProcess') {
        return {
          kinds: new Set(['message', 'timer', 'signal', 'error', 'escalation', 'compensate', 'conditional']),
          rule: 'an event sub-process starts on a message, timer, signal, error, escalation, compensation or condition',
        };
      }
      if (scope === 'subProcess' || scope === 'transaction') {
        return {
          kinds: new Set(),
          rule: 'an embedded sub-process starts with a none start event; only an event sub-process starts on an event',
        };
      }
      return {
        kinds: new Set(['message', 'timer', 'signal', 'conditional']),
        rule: 'a process starts on none, a message, a timer, a signal or a condition; error and escalation start events belong in an event sub-process',
      };
    case 'end':
      return scope === 'transaction'
        ? {
            kinds: new Set(['terminate', 'error', 'escalation', 'signal', 'message', 'compensate', 'cancel']),
            rule: 'an end event is none, terminate, error, escalation, signal, message, compensate or (in a transaction) cancel',
          }
        : {
            kinds: new Set(['terminate', 'error', 'escalation', 'signal', 'message', 'compensate']),
            rule: 'an end event is none, terminate, error, escalation, signal, message or compensate; a cancel end event belongs directly in a bpmn:transaction',
          };
    case 'catch':
      return {
        kinds: new Set(['timer', 'message', 'signal', 'link', 'conditional']),
        rule: 'an intermediate catch event waits for a timer, a message, a signal, a link or a condition',
      };
    case 'throw':
      return {
        kinds: new Set(['signal', 'escalation', 'link', 'message', 'compensate']),
        rule: 'an intermediate throw event is none, signal, escalation, link, message or compensate',
      };
    case 'boundary':
      return {
        kinds: new Set(['timer', 'message', 'signal', 'error', 'escalation', 'compensate', 'cancel', 'conditional']),
        rule: 'a boundary event catches a timer, a message, a signal, an error, an escalation, a compensation, a cancel or a condition',
      };
  }
}

/**
 * Compiles a definition of a kind already checked against the role (see `allowedKinds`).
 *
 * @returns the event definition, or null when an issue was recorded.
 */
export function compileEvent(
  definition: ModdleElement,
  kind: EventDefinition['kind'],
  element: ModdleElement,
  role: EventRole,
  context: EventContext,
): EventDefinition | null {
  const processStart = role === 'start' && context.scope === 'process';
  const throwing = role === 'end' || role === 'throw';
  switch (kind) {
    case 'timer':
      return timer(definition, element, role, context.issues);
    case 'message':
      return message(definition, element, context, {
        correlation: processStart ? 'none' : throwing ? 'optional' : 'required',
        staticName: processStart,
        refRequired: !throwing,
      });
    case 'signal':
      return signal(definition, element, context, processStart);
    case 'error':
    case 'escalation':
      return code(kind, definition, element, context, role === 'boundary' || role === 'start');
    case 'link':
      return link(definition, element, context.issues);
    case 'compensate':
      return compensate(definition, element, role, context);
    case 'cancel':
      return { kind: 'cancel' };
    case 'conditional':
      return conditional(definition, element, context.issues);
  }
}
