/**
 * Zeebe extension elements: which ones the compiler reads, which it ignores as descriptive, and
 * which carry behaviour Thresher does not run yet (those refuse the model rather than being dropped).
 *
 * @module
 */
import { compileExpression } from './expression.js';
import type { IssueCollector } from './issues.js';
import { children, extensions, type ModdleElement, str } from './moddle.js';
import type { IoMapping, Mapping } from './types.js';

/** Namespaces whose extension elements Thresher understands; anything else is vendor data and ignored. */
const OWN_PREFIXES = new Set(['bpmn', 'zeebe', 'thresher']);

/** Extension elements that describe but do not change how an element runs (forms, headers, metadata). */
const DESCRIPTIVE = new Set([
  'zeebe:Properties',
  'zeebe:TaskHeaders',
  'zeebe:FormDefinition',
  'zeebe:UserTask',
  'zeebe:UserTaskForm',
  'zeebe:VersionTag',
  'zeebe:TaskSchedule',
  'zeebe:PriorityDefinition',
  'zeebe:JobPriorityDefinition',
  'zeebe:LinkedResources',
  'thresher:Touchpoint',
]);

/**
 * Checks an element's extension elements and returns the ones listed in `used`, by type.
 * Records an issue for every Zeebe or Thresher extension that is neither used here nor descriptive
 * (e.g. `zeebe:ExecutionListeners`), and for a used one given twice.
 */
export function readExtensions(
  element: ModdleElement,
  used: readonly string[],
  issues: IssueCollector,
): Map<string, ModdleElement> {
  const found = new Map<string, ModdleElement>();
  for (const extension of extensions(element)) {
    const type = extension.$type;
    const prefix = type.slice(0, Math.max(0, type.indexOf(':')));
    if (used.includes(type)) {
      if (found.has(type)) issues.error(element, `${type} is given more than once`);
      else found.set(type, extension);
    } else if (OWN_PREFIXES.has(prefix) && !DESCRIPTIVE.has(type)) {
      issues.error(element, `${type} on ${element.$type} is not supported yet`);
    }
  }
  return found;
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
    // Zeebe reads every mapping source as FEEL, with or without the leading `=`.
    const source = compileExpression(str(parameter, 'source'), element, `${kind} source for "${target}"`, issues);
    if (source) mappings.push({ source, target });
  }
  return mappings;
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
