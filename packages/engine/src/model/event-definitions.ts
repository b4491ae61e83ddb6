/**
 * Compiling each kind of event definition (Zeebe flavour): timers with their literals checked, messages by
 * `bpmn:Message name` and `zeebe:subscription correlationKey`, signals by name, errors and escalations by code,
 * links by name, conditions with their filter, compensation by its activity; and what compiling one needs.
 *
 * @module
 */
import { compileExpression, compileRequiredExpression, compileValue, isExpressionText, literal } from './expression.js';
import type { IssueCollector } from './issues.js';
import { child, extensions, idOf, type ModdleElement, str } from './moddle.js';
import type { UnresolvedReferences } from './read-warnings.js';
import { timerLiteralIssue } from './timers.js';
import type { ConditionFilter, EventDefinition, Expression, TimerSpec } from './types.js';

/** Where a container sits: the process itself, an embedded sub-process, or an event sub-process. */
export type Scope = 'process' | 'subProcess' | 'eventSubProcess' | 'transaction';

/** What an event element does with its definition. */
export type EventRole = 'start' | 'end' | 'catch' | 'throw' | 'boundary';

/** A compiled definition's kind, or `terminate` (which compiles to its own node type). */
export type EventKind = EventDefinition['kind'] | 'terminate';

/** What compiling an event needs beyond the element. */
export interface EventContext {
  issues: IssueCollector;
  unresolved: UnresolvedReferences;
  /** The scope of the container the event sits in. */
  scope: Scope;
}

/**
 * A condition: `=` FEEL, as every Zeebe expression, with the `zeebe:conditionalFilter` that says which
 * variable changes (`variableNames`, `variableEvents` create / update) make it checked again.
 */
export function conditional(
  definition: ModdleElement,
  element: ModdleElement,
  issues: IssueCollector,
): EventDefinition | null {
  const expression = child(definition, 'condition');
  const body = (expression ? (str(expression, 'body') ?? '') : '').trim();
  if (body === '') {
    issues.error(
      element,
      `${element.$type} needs a condition: <bpmn:condition xsi:type="bpmn:tFormalExpression">=x > 5</bpmn:condition>`,
    );
    return null;
  }
  const condition = compileRequiredExpression(body, element, 'condition', issues);
  const filter = conditionFilter(definition, element, issues);
  return condition && filter !== undefined ? { kind: 'conditional', condition, filter } : null;
}

/** The `zeebe:conditionalFilter`, null without one, undefined (with an issue) when it names an unknown event. */
function conditionFilter(
  definition: ModdleElement,
  element: ModdleElement,
  issues: IssueCollector,
): ConditionFilter | null | undefined {
  const filter = extensions(definition).find((extension) => extension.$type === 'zeebe:ConditionalFilter');
  if (!filter) return null;
  const list = (text: string | undefined) =>
    (text ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  const names = list(str(filter, 'variableNames'));
  const events = list(str(filter, 'variableEvents'));
  const unknown = events.filter((event) => event !== 'create' && event !== 'update');
  if (unknown.length > 0) {
    issues.error(
      element,
      `zeebe:conditionalFilter variableEvents "${unknown.join(', ')}" is not create or update (the variable changes a condition is checked on)`,
    );
    return undefined;
  }
  return {
    variables: names.length > 0 ? names : null,
    events: events.length > 0 ? (events as ConditionFilter['events']) : ['create', 'update'],
  };
}

/**
 * A compensation: a boundary names no activity (its own is the one attached to); a throw names one with
 * `activityRef`, or none for its whole scope. Thresher waits for the handlers, as Zeebe does.
 */
export function compensate(
  definition: ModdleElement,
  element: ModdleElement,
  role: EventRole,
  context: EventContext,
): EventDefinition | null {
  const { issues } = context;
  if (context.unresolved.get(definition)?.has('bpmn:activityRef')) return null;
  if (definition.waitForCompletion === false) {
    issues.error(
      element,
      'waitForCompletion="false" is not supported: a compensation throw waits until its handlers have completed, as in Zeebe',
    );
    return null;
  }
  const activity = child(definition, 'activityRef');
  if (role === 'boundary' && activity) {
    issues.error(
      element,
      'a compensation boundary event compensates the activity it is attached to: remove its activityRef',
    );
    return null;
  }
  return { kind: 'compensate', activity: activity ? (idOf(activity) ?? null) : null };
}

const TIMER_PROPERTIES: ReadonlyArray<[string, TimerSpec['kind']]> = [
  ['timeDuration', 'duration'],
  ['timeDate', 'date'],
  ['timeCycle', 'cycle'],
];

export function timer(
  definition: ModdleElement,
  element: ModdleElement,
  role: EventRole,
  issues: IssueCollector,
): EventDefinition | null {
  const given = TIMER_PROPERTIES.flatMap(([property, kind]) => {
    const expression = child(definition, property);
    return expression ? [{ property, kind, body: str(expression, 'body') ?? '' }] : [];
  });
  const [found, ...others] = given;
  if (!found) {
    issues.error(element, 'a bpmn:TimerEventDefinition needs a timeDuration, a timeDate or a timeCycle');
    return null;
  }
  if (others.length > 0) {
    const names = given.map((item) => item.property).join(' and ');
    issues.error(element, `a bpmn:TimerEventDefinition has ${names}; give exactly one`);
    return null;
  }
  if (role === 'catch' && found.kind === 'cycle') {
    issues.error(
      element,
      'an intermediate timer catch event fires once: give a timeDuration or a timeDate, not a timeCycle',
    );
    return null;
  }
  const what = `timer ${found.property}`;
  const text = found.body.trim();
  if (text === '') {
    issues.error(element, `${what} is empty`);
    return null;
  }
  let expression: Expression | null;
  if (text.startsWith('=')) {
    expression = compileExpression(text, element, what, issues);
  } else {
    const issue = timerLiteralIssue(found.kind, text);
    if (issue) issues.error(element, `${what} ${issue}`);
    expression = issue ? null : literal(text, element);
  }
  return expression ? { kind: 'timer', timer: { kind: found.kind, expression } } : null;
}

interface MessageRules {
  /** Whether a correlation key is required (catching), optional (throwing) or ignored (process start). */
  correlation: 'required' | 'optional' | 'none';
  /** A process-level start subscribes at deployment, before any variable exists: the name must be constant. */
  staticName: boolean;
  /** Throw events are jobs: their message is optional, as in Zeebe. */
  refRequired: boolean;
}

/** A message throw without a `messageRef` names no message: its name evaluates to null. */
const NO_MESSAGE = 'null';

/**
 * Compiles the message a `holder` (a message event definition, or a receive task) refers to.
 *
 * @param element the event or task, named by issues and by the expressions.
 */
export function message(
  holder: ModdleElement,
  element: ModdleElement,
  context: EventContext,
  rules: MessageRules,
): Extract<EventDefinition, { kind: 'message' }> | null {
  const { issues } = context;
  const ref = child(holder, 'messageRef');
  if (!ref) {
    if (context.unresolved.get(holder)?.has('bpmn:messageRef')) return null;
    if (!rules.refRequired) {
      return { kind: 'message', name: { source: NO_MESSAGE, elementId: idOf(element) ?? '' }, correlationKey: null };
    }
    issues.error(element, `${element.$type} needs a messageRef naming the bpmn:Message it waits for`);
    return null;
  }
  const messageId = idOf(ref) ?? '?';
  if (ref.$type !== 'bpmn:Message') {
    issues.error(element, `messageRef "${messageId}" is a ${ref.$type}, not a bpmn:Message`);
    return null;
  }
  const name = nameOf(ref, element, `message "${messageId}"`, rules.staticName, issues);
  let correlationKey: Expression | null = null;
  let ok = name !== null;
  if (rules.correlation !== 'none') {
    const subscription = extensions(ref).find((extension) => extension.$type === 'zeebe:Subscription');
    const raw = subscription ? str(subscription, 'correlationKey') : undefined;
    if (raw !== undefined && raw.trim() !== '') {
      correlationKey = compileValue(raw, element, 'zeebe:subscription correlationKey', issues);
      ok &&= correlationKey !== null;
    } else if (rules.correlation === 'required') {
      issues.error(
        element,
        `message "${messageId}" has no zeebe:subscription correlationKey; a ${element.$type} needs one to know which instance a message is for`,
      );
      ok = false;
    }
  }
  return ok && name ? { kind: 'message', name, correlationKey } : null;
}

export function signal(
  definition: ModdleElement,
  element: ModdleElement,
  context: EventContext,
  staticName: boolean,
): EventDefinition | null {
  const ref = child(definition, 'signalRef');
  if (!ref) {
    if (!context.unresolved.get(definition)?.has('bpmn:signalRef')) {
      context.issues.error(element, `${element.$type} needs a signalRef naming its bpmn:Signal`);
    }
    return null;
  }
  if (ref.$type !== 'bpmn:Signal') {
    context.issues.error(element, `signalRef "${idOf(ref) ?? '?'}" is a ${ref.$type}, not a bpmn:Signal`);
    return null;
  }
  const name = nameOf(ref, element, `signal "${idOf(ref) ?? '?'}"`, staticName, context.issues);
  return name ? { kind: 'signal', name } : null;
}

const CODES = {
  error: { ref: 'errorRef', type: 'bpmn:Error', code: 'errorCode' },
  escalation: { ref: 'escalationRef', type: 'bpmn:Escalation', code: 'escalationCode' },
} as const;

/** An error or escalation code; null (catch every one) only where `catchAll` allows it. */
export function code(
  kind: 'error' | 'escalation',
  definition: ModdleElement,
  element: ModdleElement,
  context: EventContext,
  catchAll: boolean,
): EventDefinition | null {
  const { ref: refProperty, type, code: codeProperty } = CODES[kind];
  const { issues } = context;
  const ref = child(definition, refProperty);
  if (!ref && context.unresolved.get(definition)?.has(`bpmn:${refProperty}`)) return null;
  if (ref && ref.$type !== type) {
    issues.error(element, `${refProperty} "${idOf(ref) ?? '?'}" is a ${ref.$type}, not a ${type}`);
    return null;
  }
  const value = ref ? str(ref, codeProperty)?.trim() : undefined;
  if (!value) {
    if (catchAll) return { kind, code: null };
    const why = ref ? `${type} "${idOf(ref) ?? '?'}" has no ${codeProperty}` : `it has no ${refProperty}`;
    issues.error(element, `an ${kind} ${throwWord(element)} needs an ${codeProperty} to throw: ${why}`);
    return null;
  }
  if (value.startsWith('=')) {
    issues.error(element, `${codeProperty} given as an expression ("${value}") is not supported yet`);
    return null;
  }
  return { kind, code: value };
}

function throwWord(element: ModdleElement): string {
  return element.$type === 'bpmn:EndEvent' ? 'end event' : 'throw event';
}

export function link(
  definition: ModdleElement,
  element: ModdleElement,
  issues: IssueCollector,
): EventDefinition | null {
  const name = str(definition, 'name');
  if (name === undefined || name.trim() === '') {
    issues.error(element, 'a link event needs a name on its bpmn:LinkEventDefinition');
    return null;
  }
  return { kind: 'link', name };
}

/** A FEEL string literal: `"…"` with escapes. */
const FEEL_STRING = /^"(?:[^"\\]|\\.)*"$/;

/** The `name` of a message or signal: `=expr` is FEEL, anything else a literal (a FEEL string). */
function nameOf(
  ref: ModdleElement,
  element: ModdleElement,
  what: string,
  mustBeStatic: boolean,
  issues: IssueCollector,
): Expression | null {
  const raw = str(ref, 'name');
  if (raw === undefined || raw.trim() === '') {
    issues.error(element, `${what} has no name`);
    return null;
  }
  if (!isExpressionText(raw)) return literal(raw, element);
  const expression = compileExpression(raw, element, `${what} name`, issues);
  if (expression && mustBeStatic && !FEEL_STRING.test(expression.source)) {
    issues.error(
      element,
      `${what} name "${expression.source}" must be a constant for a start event of a process: it is subscribed at deployment, before any variable exists`,
    );
    return null;
  }
  return expression;
}
