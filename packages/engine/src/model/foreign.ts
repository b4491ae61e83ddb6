/**
 * Extensions written for other engines (Camunda 7, Flowable, Activiti): bpmn-moddle does not know their
 * namespaces, so it keeps their attributes in `$attrs` and their extension elements as generic elements.
 * Nothing a model says may be dropped without a word: behaviour-changing ones refuse the model, naming
 * what to use instead; descriptive ones (and other vendors' data) are warned about as ignored.
 *
 * @module
 */
import { _feelSyntaxIssue } from '../common/feel.js';
import type { IssueCollector } from './issues.js';
import { child, children, extensions, idOf, isElement, type ModdleElement, str } from './moddle.js';

/** Foreign engine namespaces, by URI (the prefix is whatever the file declares). */
const ENGINES: Readonly<Record<string, string>> = {
  'http://camunda.org/schema/1.0/bpmn': 'Camunda 7',
  'http://flowable.org/bpmn': 'Flowable',
  'http://activiti.org/bpmn': 'Activiti',
};

/** Namespaces bpmn-moddle or another part of the compiler reads (and warns about), or pure presentation/metadata. */
const SILENT = new Set([
  'http://www.omg.org/spec/BPMN/20100524/MODEL',
  'http://www.omg.org/spec/BPMN/20100524/DI',
  'http://www.omg.org/spec/DD/20100524/DC',
  'http://www.omg.org/spec/DD/20100524/DI',
  'http://www.w3.org/2001/XMLSchema-instance',
  'http://www.w3.org/XML/1998/namespace',
  'http://camunda.org/schema/zeebe/1.0',
  'http://thresher.dev/schema/bpmn/1.0',
  'http://bpmn.io/schema/bpmn/biocolor/1.0',
  'http://www.omg.org/spec/BPMN/non-normative/color/1.0',
  'http://camunda.org/schema/modeler/1.0',
]);

type Rule = { readonly kind: 'refuse' | 'warn'; readonly advice: string };

const HANDLER = 'give the task a zeebe:taskDefinition type and register a handler for it';
const RESULT = 'use a zeebe:ioMapping output (zeebe:script resultVariable on a script task)';
const CALLED =
  'choose the version with zeebe:calledElement bindingType (latest, deployment or versionTag with versionTag)';
const LISTENER = 'task and event listeners do not run in Thresher; model the work as a service task';
const EXECUTION_LISTENER =
  'a Java listener does not run in Thresher; write a zeebe:executionListener (a job a handler runs) or model the work as a service task';
const MULTI = 'use zeebe:loopCharacteristics inputCollection / inputElement';
const ASYNC = 'Thresher persists every step, so it has no effect';
const DMN =
  'write <zeebe:calledDecision decisionId="…" resultVariable="…" /> (bindingType / versionTag choose the version)';
const DECISION_RESULT = "Zeebe hands over the decision's result as it is: shape it with zeebe:ioMapping outputs";
const BPMN_ERROR = 'throw a BPMN error from the job handler and catch it with an error event';
const NOT_STORED = 'the caught code is not stored in a variable';
const EVENTS = 'the Flowable event registry is not supported; use a bpmn:message with zeebe:subscription';
const TASKLIST =
  'Thresher has no tasklist; use zeebe:assignmentDefinition / zeebe:taskSchedule / zeebe:priorityDefinition';
const FORM = 'Thresher does not render forms; use zeebe:formDefinition';
const STARTER = 'Thresher has no tasklist: who may start a process is up to the application';

/** [kind, advice, local names (attribute or element)]; names not listed are warned about as ignored. */
const TABLE: readonly (readonly [Rule['kind'], string, string])[] = [
  // Java / JUEL implementations and wiring: without them the work would silently not happen.
  ['refuse', HANDLER, 'class expression delegateExpression connector triggerable'],
  ['refuse', RESULT, 'resultVariable useLocalScopeForResultVariable'],
  ['refuse', 'use zeebe:ioMapping (zeebe:input / zeebe:output)', 'inputOutput inputParameter outputParameter'],
  ['refuse', EXECUTION_LISTENER, 'executionListener'],
  ['refuse', LISTENER, 'taskListener eventListener'],
  ['refuse', 'field injection is Java-only; pass values with zeebe:ioMapping or zeebe:taskHeaders', 'field'],
  ['refuse', 'use zeebe:calledElement propagateAllChildVariables / zeebe:ioMapping', 'in out'],
  ['refuse', 'use zeebe:calledElement propagateAllParentVariables', 'inheritVariables'],
  ['refuse', 'use zeebe:ioMapping on the call activity', 'variableMappingClass variableMappingDelegateExpression'],
  ['refuse', CALLED, 'calledElementBinding calledElementVersion calledElementVersionTag calledElementTenantId'],
  ['refuse', CALLED, 'calledElementType sameDeployment fallbackToDefaultTenant'],
  ['refuse', 'CMMN cases are not supported', 'caseRef caseBinding caseVersion caseTenantId'],
  ['refuse', MULTI, 'collection elementVariable elementIndexVariable'],
  ['refuse', 'scripts run only as FEEL; use a zeebe:ioMapping FEEL expression', 'script resource'],
  ['refuse', 'conditions are FEEL: write "=…" in bpmn:conditionExpression', 'conditionExpression'],
  ['refuse', BPMN_ERROR, 'errorEventDefinition mapException'],
  ['refuse', NOT_STORED, 'errorCodeVariable errorMessageVariable escalationCodeVariable'],
  ['refuse', 'a conditional event evaluates its FEEL condition on every change', 'variableName variableEvents'],
  ['refuse', DMN, 'decisionRef decisionRefBinding decisionRefVersion decisionRefVersionTag decisionRefTenantId'],
  ['refuse', DECISION_RESULT, 'mapDecisionResult decisionTableReferenceKey'],
  ['refuse', 'Java form handlers do not run; use zeebe:formDefinition', 'formHandlerClass'],
  ['refuse', 'model the skip with an exclusive gateway and a FEEL condition', 'skipExpression'],
  ['refuse', EVENTS, 'eventType eventName eventCorrelationParameter eventInParameter eventOutParameter channelKey'],
  // Descriptive (tasklist, forms, history, job tuning): the model runs the same without them.
  ['warn', ASYNC, 'asyncBefore asyncAfter async exclusive asyncLeave asyncLeaveExclusive'],
  ['warn', TASKLIST, 'assignee candidateUsers candidateGroups owner dueDate followUpDate priority'],
  ['warn', FORM, 'formKey formRef formRefBinding formRefVersion formData formField formProperty formFieldValidation'],
  ['warn', 'the starting user is not stored in a variable', 'initiator'],
  ['warn', 'history is kept by the store, not per process', 'historyTimeToLive historyLevel'],
  ['warn', 'use zeebe:versionTag', 'versionTag'],
  ['warn', STARTER, 'isStartableInTasklist candidateStarterGroups candidateStarterUsers potentialStarter'],
  ['warn', 'use zeebe:properties', 'properties property'],
  ['warn', 'retries come from zeebe:taskDefinition retries', 'failedJobRetryTimeCycle'],
  ['warn', 'Thresher has no job priorities', 'jobPriority taskPriority'],
];

const RULES: Readonly<Record<string, Rule>> = Object.fromEntries(
  TABLE.flatMap(([kind, advice, names]) => names.split(' ').map((name) => [name, { kind, advice }])),
);

/** Script-task attributes `nodes.ts` already covers: a bpmn:ScriptTask without zeebe:script is refused there. */
const SCRIPT_TASK_COVERED = new Set(['resultVariable', 'resource', 'autoStoreVariables']);

type Namespaces = ReadonlyMap<string, string>;

/** What the walk found: each message said once per element; other vendors' content grouped by element and URI. */
interface Findings {
  readonly issues: IssueCollector;
  readonly said: Set<string>;
  readonly ignored: Map<ModdleElement, Map<string, Set<string>>>;
}

/**
 * Refuses (by name) the behaviour-changing Camunda 7 / Flowable / Activiti extensions anywhere in the
 * definitions, warns about the descriptive ones and about other vendors' extensions, and refuses JUEL
 * sequence-flow conditions. Leaves zeebe: and thresher: extensions to `extensions.ts`.
 */
export function checkForeignExtensions(definitions: ModdleElement, issues: IssueCollector): void {
  const visited = new Set<ModdleElement>();
  const found: Findings = { issues, said: new Set(), ignored: new Map() };
  // Only containment is followed (`$parent` points back); references lead to elements visited elsewhere.
  const visit = (element: ModdleElement, outer: Namespaces): void => {
    if (visited.has(element)) return;
    visited.add(element);
    const ns = genericNs(element);
    if (ns) return foreignElement(element, ns, found);
    const attrs = (element.$attrs ?? {}) as Record<string, unknown>; // a non-enumerable getter
    const scope = declare(outer, attrs);
    checkAttributes(element, attrs, scope, found);
    if (element.$type === 'bpmn:SequenceFlow') checkCondition(element, issues);
    for (const value of Object.values(element)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (isElement(item) && item.$parent === element) visit(item, scope);
      }
    }
  };
  visit(definitions, new Map());
  for (const [holder, byUri] of found.ignored) {
    for (const [uri, names] of byUri) {
      issues.warn(
        idOf(holder) ?? null,
        `${[...names].join(', ')} (namespace "${uri}") ignored: Thresher does not read this vendor extension`,
      );
    }
  }
}

/**
 * Whether an expression body is JUEL, as Camunda 7 and Flowable write it: it starts with `${` or `#{`
 * and closes the brace (`${a == 1}`, `${a} && ${b}`). No FEEL expression starts that way.
 */
export function isJuel(text: string): boolean {
  return /^[$#]\{[\s\S]*\}/.test(text.trim());
}

function checkAttributes(
  element: ModdleElement,
  attrs: Record<string, unknown>,
  scope: Namespaces,
  found: Findings,
): void {
  const holder = holderOf(element);
  for (const [name, raw] of Object.entries(attrs)) {
    const colon = name.indexOf(':');
    // Unprefixed unknown attributes already get bpmn-moddle's "unknown attribute" warning.
    if (colon < 0 || name.startsWith('xmlns:')) continue;
    const prefix = name.slice(0, colon);
    const local = name.slice(colon + 1);
    const uri = prefix === 'xml' ? 'http://www.w3.org/XML/1998/namespace' : scope.get(prefix);
    if (uri !== undefined && SILENT.has(uri)) continue;
    const engine = uri === undefined ? undefined : ENGINES[uri];
    if (engine === undefined) {
      note(found, holder, uri ?? `undeclared prefix ${prefix}`, name);
      continue;
    }
    if (local === 'topic' && `${prefix}:type` in attrs) continue; // reported with the type
    if (SCRIPT_TASK_COVERED.has(local) && scriptTaskRefusedElsewhere(element)) continue;
    let written = `${name}="${shorten(String(raw))}"`;
    let rule = ruleFor(local);
    if (local === 'type' || local === 'topic') {
      const topic = attrs[`${prefix}:topic`];
      if (local === 'type' && typeof topic === 'string') written += ` ${prefix}:topic="${shorten(topic)}"`;
      rule = typeRule(local === 'topic' ? 'external' : String(raw), typeof topic === 'string' ? topic : undefined);
    }
    if (rule.kind === 'refuse' && runsFromZeebe(element, holder, local)) rule = LEFTOVER;
    report(found, holder, written, engine, rule);
  }
}

/** What a Camunda 7 attribute would do, by the Zeebe extension that does it instead. */
const ZEEBE_COUNTERPART: Readonly<Record<string, readonly string[]>> = Object.fromEntries([
  ...'class expression delegateExpression connector triggerable type topic resultVariable useLocalScopeForResultVariable'
    .split(' ')
    .map((name) => [name, ['zeebe:TaskDefinition', 'zeebe:Script', 'zeebe:CalledDecision']] as const),
  ...'decisionRef decisionRefBinding decisionRefVersion decisionRefVersionTag decisionRefTenantId mapDecisionResult'
    .split(' ')
    .map((name) => [name, ['zeebe:CalledDecision']] as const),
  ...'collection elementVariable elementIndexVariable'
    .split(' ')
    .map((name) => [name, ['zeebe:LoopCharacteristics']] as const),
  ...'calledElementBinding calledElementVersion calledElementVersionTag calledElementTenantId inheritVariables variableMappingClass variableMappingDelegateExpression'
    .split(' ')
    .map((name) => [name, ['zeebe:CalledElement']] as const),
]);

const LEFTOVER: Rule = {
  kind: 'warn',
  advice: 'Zeebe ignores it too: the element runs from its zeebe: extension that does the same, as Zeebe runs it',
};

/**
 * Whether a Camunda 7 attribute is a leftover on an element migrated to Zeebe: the element (or, for a loop's
 * attribute, the loop) has the Zeebe extension that does what the attribute did, which is what Zeebe runs.
 */
function runsFromZeebe(element: ModdleElement, holder: ModdleElement, local: string): boolean {
  const counterparts = ZEEBE_COUNTERPART[local];
  if (!counterparts) return false;
  const types = new Set([...extensions(element), ...extensions(holder)].map((extension) => extension.$type));
  return counterparts.some((type) => types.has(type));
}

/** `camunda:type="external"` / `flowable:type="external-worker"` is an external task; other types are Java tasks. */
function typeRule(type: string, topic: string | undefined): Rule {
  if (type.startsWith('external')) {
    return { kind: 'refuse', advice: `an external task: use zeebe:taskDefinition type="${topic ?? '<topic>'}"` };
  }
  return { kind: 'refuse', advice: `the built-in "${type}" task does not exist in Thresher; ${HANDLER}` };
}

/** A generic (foreign) element: reported once as a whole; a descriptive one is searched for behaviour inside. */
function foreignElement(element: ModdleElement, ns: { uri: string; localName: string }, found: Findings): void {
  if (SILENT.has(ns.uri)) return;
  const holder = holderOf(element);
  const engine = ENGINES[ns.uri];
  if (engine === undefined) return note(found, holder, ns.uri, element.$type);
  const rule = ruleFor(ns.localName);
  report(found, holder, element.$type, engine, rule);
  if (rule.kind === 'warn') refusedInside(element, holder, found);
}

/** Refuse-kind foreign elements nested in a warned one (its descriptive children are covered by its warning). */
function refusedInside(element: ModdleElement, holder: ModdleElement, found: Findings): void {
  for (const item of children(element, '$children')) {
    const ns = genericNs(item);
    const engine = ns && ENGINES[ns.uri];
    const rule = ns && ruleFor(ns.localName);
    if (engine && rule?.kind === 'refuse') report(found, holder, item.$type, engine, rule);
    else if (ns) refusedInside(item, holder, found);
  }
}

function report(found: Findings, holder: ModdleElement, written: string, engine: string, rule: Rule): void {
  const what = `${written} is ${/^[AEIOU]/.test(engine) ? 'an' : 'a'} ${engine} extension Thresher`;
  const message = rule.kind === 'refuse' ? `${what} does not run: ${rule.advice}` : `${what} ignores: ${rule.advice}`;
  const key = `${idOf(holder) ?? ''}\n${message}`;
  if (found.said.has(key)) return; // e.g. five camunda:field elements on one task
  found.said.add(key);
  if (rule.kind === 'refuse') found.issues.error(holder, message);
  else found.issues.warn(idOf(holder) ?? null, message);
}

/** A JUEL condition on a sequence flow: one issue naming the flow, with the FEEL it likely means. */
function checkCondition(flow: ModdleElement, issues: IssueCollector): void {
  const expression = child(flow, 'conditionExpression');
  const body = expression?.$instanceOf('bpmn:Expression') ? str(expression, 'body')?.trim() : undefined;
  if (body === undefined || !isJuel(body)) return;
  const feel = toFeel(body);
  const example = feel ? `, e.g. "=${feel}"` : ', written with a leading "="';
  issues.error(flow, `condition "${body}" is JUEL (Camunda 7 / Flowable): Thresher conditions are FEEL${example}`);
}

/** JUEL operator → FEEL operator, as pairs. */
const JUEL_OPERATORS = new Map(
  ['== =', '&& and', '|| or', 'eq =', 'ne !=', 'lt <', 'gt >', 'le <=', 'ge >='].map(
    (pair) => pair.split(' ') as [string, string],
  ),
);

/** A best-effort FEEL reading of a simple JUEL expression; undefined when the result does not parse. */
function toFeel(juel: string): string | undefined {
  // One `${…}` without Java method calls (`execution.getVariable(…)` would parse as FEEL but mean nothing).
  if (!/^[$#]\{[^{}]*\}$/.test(juel) || /\.\s*\w+\s*\(/.test(juel)) return undefined;
  const feel = juel
    .slice(2, -1)
    .trim()
    .replace(/==|&&|\|\||\b(?:eq|ne|lt|gt|le|ge)\b/g, (operator) => JUEL_OPERATORS.get(operator) ?? operator)
    .replace(/(?:!(?!=)|\bnot\s)\s*([\w.]+)/g, 'not($1)')
    .replace(/'([^'"\\]*)'/g, '"$1"');
  return feel !== '' && _feelSyntaxIssue(feel) === null ? feel : undefined;
}

function ruleFor(local: string): Rule {
  return Object.hasOwn(RULES, local)
    ? (RULES[local] as Rule)
    : { kind: 'warn', advice: 'Thresher does not read it, so it has no effect' };
}

/** A bpmn:ScriptTask without zeebe:script is refused by `nodes.ts`, which names zeebe:script and its resultVariable. */
function scriptTaskRefusedElsewhere(element: ModdleElement): boolean {
  return element.$type === 'bpmn:ScriptTask' && !extensions(element).some((item) => item.$type === 'zeebe:Script');
}

/**
 * The element a modeller sees: the nearest non-generic element with an id, and for an event definition
 * its event.
 */
function holderOf(element: ModdleElement): ModdleElement {
  const parent = element.$parent;
  if (element.$instanceOf('bpmn:EventDefinition') && parent?.$instanceOf('bpmn:Event') && idOf(parent)) return parent;
  for (let current: ModdleElement | undefined = element; current; current = current.$parent) {
    if (!isGeneric(current) && idOf(current)) return current;
  }
  return element;
}

function note(found: Findings, holder: ModdleElement, uri: string, name: string): void {
  const byUri = found.ignored.get(holder) ?? new Map<string, Set<string>>();
  found.ignored.set(holder, byUri);
  const names = byUri.get(uri) ?? new Set<string>();
  byUri.set(uri, names.add(name));
}

/** The scope's prefix → URI map plus the element's own `xmlns:` declarations. */
function declare(outer: Namespaces, attrs: Record<string, unknown>): Namespaces {
  const own = Object.entries(attrs).filter(([name, uri]) => name.startsWith('xmlns:') && typeof uri === 'string');
  if (own.length === 0) return outer;
  return new Map([...outer, ...own.map(([name, uri]): [string, string] => [name.slice(6), String(uri)])]);
}

/** A generic element's namespace URI and local name (resolved by bpmn-moddle); undefined for a typed element. */
function genericNs(element: ModdleElement): { uri: string; localName: string } | undefined {
  const descriptor = element.$descriptor as
    | { isGeneric?: boolean; ns?: { uri?: string; localName?: string } }
    | undefined;
  if (descriptor?.isGeneric !== true) return undefined;
  const localName = descriptor.ns?.localName ?? element.$type.slice(element.$type.indexOf(':') + 1);
  return { uri: descriptor.ns?.uri ?? '', localName };
}

function isGeneric(element: ModdleElement): boolean {
  return genericNs(element) !== undefined;
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
