/**
 * Sorts bpmn-moddle's read warnings into issues (content it dropped or could not resolve — a model
 * that silently lost an element must not run) and warnings (harmless notes).
 *
 * @module
 */
import type { IssueCollector } from './issues.js';
import { idOf, type ModdleElement, type ModdleWarning } from './moddle.js';

/** References bpmn-moddle could not resolve, by element, so later checks don't report them twice. */
export type UnresolvedReferences = Map<ModdleElement, Set<string>>;

const DIAGRAM_PARTS: Readonly<Record<string, string>> = {
  'bpmndi:BPMNShape': 'shape',
  'bpmndi:BPMNEdge': 'edge',
  'bpmndi:BPMNPlane': 'plane',
  'bpmndi:BPMNDiagram': 'diagram',
};

const UNPARSABLE =
  /^unparsable content ([\s\S]*?) ?detected\n\tline: (\d+)\n\tcolumn: (\d+)\n\tnested error: ([\s\S]*)$/;
const UNKNOWN_TYPE = /^unknown type <([^>]+)>$/;
const DUPLICATE_ID = /^duplicate ID <([^>]*)>$/;
const FIRST_ID = /\sid\s*=\s*(?:"([^"]*)"|'([^']*)')/;

/** Records every moddle warning in `issues`, returning the unresolved references among them. */
export function collectReadWarnings(warnings: ModdleWarning[], issues: IssueCollector): UnresolvedReferences {
  const unresolved: UnresolvedReferences = new Map();
  for (const warning of warnings) {
    const message = typeof warning.message === 'string' ? warning.message : String(warning.message);
    if (message.startsWith('unresolved reference') && warning.element?.$type.startsWith('bpmndi:')) {
      // The diagram is presentation, not execution: Zeebe deploys a model whose shapes point nowhere.
      const kind = DIAGRAM_PARTS[warning.element.$type] ?? warning.element.$type;
      const id = idOf(warning.element) ?? '?';
      issues.warn(
        id,
        `diagram ${kind} "${id}" refers to "${String(warning.value)}", which does not exist: the ${kind} is ignored`,
      );
    } else if (message.startsWith('unresolved reference') && warning.element) {
      const property = warning.property ?? 'reference';
      const properties = unresolved.get(warning.element) ?? new Set<string>();
      properties.add(property);
      unresolved.set(warning.element, properties);
      const holder = named(warning.element);
      const what = holder === warning.element ? '' : ` (on its ${warning.element.$type})`;
      issues.error(holder, `${property}${what} refers to "${String(warning.value)}", which does not exist`);
    } else if (message.startsWith('unparsable content')) {
      unparsable(message, issues);
    } else if (message.startsWith('unsupported document encoding') || message.startsWith('unknown attribute')) {
      issues.warn(warning.element ? (idOf(named(warning.element)) ?? null) : null, message);
    } else if (warning.element) {
      issues.error(named(warning.element), message);
    } else {
      issues.errorAt(null, null, message);
    }
  }
  return unresolved;
}

/**
 * The element itself when it has an id, else its nearest ancestor that has one; an event definition
 * inside an event is named by its event (the element a modeller sees).
 */
function named(element: ModdleElement): ModdleElement {
  const parent = element.$parent;
  if (element.$instanceOf('bpmn:EventDefinition') && parent?.$instanceOf('bpmn:Event') && idOf(parent)) return parent;
  for (let current: ModdleElement | undefined = element; current; current = current.$parent) {
    if (idOf(current)) return current;
  }
  return element;
}

/**
 * Content bpmn-moddle dropped (`fatal` false: the rest of the document was read) or XML it could not
 * read at all (`fatal`): names the element from the message or its tag in the XML, with the 1-based line.
 */
export function unparsable(message: string, issues: IssueCollector, fatal = false): void {
  const match = UNPARSABLE.exec(message);
  if (!match) {
    issues.errorAt(null, null, message.split('\n')[0] ?? message);
    return;
  }
  const [, data = '', lineText, columnText, nested = ''] = match;
  const line = Number(lineText);
  if (fatal) {
    issues.errorAt(null, null, `malformed XML${data ? ` at ${data.slice(0, 80)}` : ''}: ${nested}`, line + 1);
    return;
  }
  const holder = issues.lines.extensionHolderAt(issues.lines.offsetOf(line, Number(columnText)));
  if (holder) {
    // Extension elements are data for other tools: what Thresher cannot read there is noted, not fatal.
    const on = holder.holderId === null ? '' : ` of "${holder.holderId}"`;
    issues.warn(
      holder.holderId,
      `${data.slice(0, 80)} in the extensionElements${on} (line ${line + 1}) is not known to Thresher: ignored (${nested})`,
    );
    return;
  }
  const tagName = data.startsWith('<') ? data.replace(/^<\/?|\/?>$/g, '') : null;
  const unknownType = UNKNOWN_TYPE.exec(nested)?.[1];
  const duplicate = DUPLICATE_ID.exec(nested)?.[1];
  const elementType = unknownType ?? tagName;
  const elementId = duplicate ?? idInTagAt(issues, line, Number(columnText));
  const text = unknownType
    ? `${unknownType} is not an element Thresher can read`
    : duplicate !== undefined
      ? `duplicate id "${duplicate}"`
      : `unreadable content: ${nested}`;
  issues.errorAt(elementId, elementType, text, line + 1);
}

function idInTagAt(issues: IssueCollector, line: number, column: number): string | null {
  const text = issues.lines.slice(issues.lines.offsetOf(line, column), 4096);
  const end = text.indexOf('>');
  const match = FIRST_ID.exec(end >= 0 ? text.slice(0, end) : text);
  return match?.[1] ?? match?.[2] ?? null;
}
