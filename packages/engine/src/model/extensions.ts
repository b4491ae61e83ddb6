/**
 * Zeebe extension elements: which ones the compiler reads, which it ignores as descriptive, and
 * which carry behaviour Thresher does not run yet (those refuse the model rather than being dropped).
 *
 * @module
 */
import { compileValue } from './expression.js';
import type { IssueCollector } from './issues.js';
import { children, extensions, idOf, type ModdleElement, str } from './moddle.js';
import type { IoMapping, Mapping } from './types.js';

/** Namespaces whose extension elements Thresher understands; others are checked by `foreign.ts`. */
const OWN_PREFIXES = new Set(['bpmn', 'zeebe', 'thresher']);

/**
 * What Thresher does with each Zeebe (or Thresher) extension it does not read: `ignore` what only
 * describes (metadata for other tools), `warn` where Camunda would do something Thresher does not yet,
 * though the run's path and data stay as modelled, `refuse` where running without it would be wrong.
 * Any other unread extension is refused as not supported yet. README's Zeebe table lists the same.
 */
export const UNREAD_EXTENSIONS: Readonly<Record<string, { action: 'ignore' | 'warn' | 'refuse'; why: string }>> = {
  'zeebe:Properties': { action: 'ignore', why: 'custom properties are data for other tools' },
  'zeebe:UserTask': { action: 'ignore', why: 'Thresher runs every user task itself, as a Camunda user task' },
  // Read on every flow node (touchpoint-mark.ts); elsewhere (a process, a loop) it would mark nothing.
  'thresher:Touchpoint': {
    action: 'refuse',
    why: 'a touchpoint marks a flow node (a task, an event, a gateway or a sub-process); move it there',
  },
  // Read on a user task and on a process's none start event (user-task-form.ts); anywhere else nothing shows it.
  'zeebe:FormDefinition': {
    action: 'warn',
    why: "forms belong to user tasks and a process's none start event",
  },
  'zeebe:UserTaskForm': {
    action: 'ignore',
    why: "an embedded form is read by the user task whose formKey names it, for the task's choices",
  },
  'zeebe:JobPriorityDefinition': { action: 'warn', why: 'Thresher dispatches jobs in order, without priorities' },
  'zeebe:LinkedResources': { action: 'warn', why: 'linked resources are not passed to handlers yet' },
  // Read on every process and flow node (listeners.ts); anywhere else (a loop's characteristics) nothing runs them.
  'zeebe:ExecutionListeners': {
    action: 'refuse',
    why: 'execution listeners run on a process or a flow node (a task, an event, a gateway or a sub-process); move them there',
  },
  // Read on user tasks (task-listeners.ts); Zeebe allows them nowhere else.
  'zeebe:TaskListeners': { action: 'refuse', why: 'task listeners are only allowed on user tasks, as in Zeebe' },
};

/**
 * Checks an element's extension elements and returns the ones listed in `used`, by type.
 * Every other Zeebe or Thresher extension is ignored, warned about or refused as `UNREAD_EXTENSIONS`
 * says (unlisted: refused as not supported yet); a used one given twice is refused.
 *
 * @param holder the element issues name, when `element` is part of it (an activity's loop characteristics).
 */
export function readExtensions(
  element: ModdleElement,
  used: readonly string[],
  issues: IssueCollector,
  holder: ModdleElement = element,
): Map<string, ModdleElement> {
  const found = new Map<string, ModdleElement>();
  for (const extension of extensions(element)) {
    const type = extension.$type;
    const prefix = type.slice(0, Math.max(0, type.indexOf(':')));
    if (used.includes(type)) {
      if (found.has(type)) issues.error(holder, `${type} is given more than once`);
      else found.set(type, extension);
      continue;
    }
    if (!OWN_PREFIXES.has(prefix)) continue;
    const rule = UNREAD_EXTENSIONS[type];
    const name = tagName(type);
    if (!rule) issues.error(holder, `${name} on ${element.$type} is not supported yet`);
    else if (rule.action === 'refuse') issues.error(holder, `${name} on ${element.$type}: ${rule.why}`);
    else if (rule.action === 'warn') issues.warn(idOf(holder) ?? null, `${name} is ignored: ${rule.why}`);
  }
  return found;
}

/** `zeebe:ExecutionListeners` as the XML writes it: `zeebe:executionListeners`. */
export function tagName(type: string): string {
  const colon = type.indexOf(':');
  return `${type.slice(0, colon + 1)}${type.charAt(colon + 1).toLowerCase()}${type.slice(colon + 2)}`;
}

/** Compiles `zeebe:ioMapping` (absent → no mappings). */
export function readIoMapping(
  element: ModdleElement,
  ioMapping: ModdleElement | undefined,
  issues: IssueCollector,
): IoMapping {
  if (!ioMapping) return { inputs: [], outputs: [] };
  return {
    inputs: readMappings(element, children(ioMapping, 'inputParameters'), 'zeebe:input', issues),
    outputs: readMappings(element, children(ioMapping, 'outputParameters'), 'zeebe:output', issues),
  };
}

function readMappings(
  element: ModdleElement,
  parameters: ModdleElement[],
  kind: string,
  issues: IssueCollector,
): Mapping[] {
  const mappings: Mapping[] = [];
  for (const parameter of parameters) {
    const target = str(parameter, 'target')?.trim();
    if (!target) {
      issues.error(element, `${kind} has no target variable`);
      continue;
    }
    // Zeebe's value rule: `=expr` is FEEL, other text the literal string; no source at all is null.
    const raw = str(parameter, 'source');
    if (isJsonPath(raw) || isJsonPath(target)) {
      issues.error(element, jsonPathMessage(kind, raw, target));
      continue;
    }
    const source =
      raw === undefined || raw === ''
        ? { source: 'null', elementId: idOf(element) ?? '' }
        : compileValue(raw, element, `${kind} source for "${target}"`, issues);
    if (source) mappings.push({ source, target });
  }
  return mappings;
}

/** A Zeebe 0.x JSONPath (`$`, `$.order.id`): Zeebe 8 would read it as a static string, or a variable named `$…`. */
function isJsonPath(text: string | undefined): boolean {
  const trimmed = text?.trim() ?? '';
  return trimmed === '$' || trimmed.startsWith('$.') || trimmed.startsWith('$[');
}

/** The refusal of a JSONPath mapping, with the FEEL form to write instead. */
function jsonPathMessage(kind: string, source: string | undefined, target: string): string {
  const path = (text: string): string =>
    text
      .trim()
      .replace(/^\$\.?/, '')
      .replace(/\[['"]?([^'"\]]+)['"]?\]/g, '.$1')
      .replace(/^\./, '');
  const feelSource = source === undefined || isJsonPath(source) ? `=${path(source ?? '') || '…'}` : source;
  const feelTarget = isJsonPath(target) ? path(target) || '…' : target;
  return `${kind} source="${source ?? ''}" target="${target}" is a Zeebe 0.x JSONPath mapping, which Zeebe 8 does not read as a path: write it in FEEL, source="${feelSource}" target="${feelTarget}"`;
}

/** `zeebe:taskHeaders` as a plain record (later duplicates win, as in Zeebe's job headers). */
export function readHeaders(taskHeaders: ModdleElement | undefined): Record<string, string> {
  const headers = new Map<string, string>();
  for (const header of taskHeaders ? children(taskHeaders, 'values') : []) {
    const key = str(header, 'key');
    if (key !== undefined) headers.set(key, str(header, 'value') ?? '');
  }
  // fromEntries defines own properties, so a header named `__proto__` stays a header.
  return Object.fromEntries(headers);
}
