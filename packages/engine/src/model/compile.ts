/**
 * `compile(xml)`: BPMN XML in, the immutable `ProcessModel` IR out — or one `ModelError` naming
 * every element Thresher cannot run (docs/architecture.md §2).
 *
 * @module
 */
import { ModelError, type ModelIssue } from '../common/errors.js';
import { digestModel } from './digest.js';
import { checkForeignExtensions } from './foreign.js';
import { IssueCollector, LineIndex } from './issues.js';
import { children, idOf, type ModdleDocument, readXml } from './moddle.js';
import { compileProcess } from './process.js';
import type { ProcessDef, ProcessModel } from './process-types.js';
import { collectReadWarnings, unparsable } from './read-warnings.js';
import { straightThroughLoops } from './straight-through.js';
import { unsupportedIssues } from './support.js';
import { BPMN_NAMESPACE, doctypeAt, normalizeAttributeSpacing, type RootTag, rootTag } from './xml-text.js';

/** Options of {@link compile}. */
export interface CompileOptions {
  /**
   * Compile every process as if it were executable, also when none has `isExecutable="true"`
   * (documentation models such as the BPMN MIWG suite). Default false: a file without an executable
   * process is refused, as Zeebe refuses it, and a non-executable process beside an executable one
   * is compiled only if it can be (else it is left out with a warning), like a documentation pool.
   */
  allowNonExecutable?: boolean;
  /**
   * Whether to refuse what the runtime cannot execute yet (`support.ts`). Default true. `false` compiles
   * everything the compiler understands, to test the compiler ahead of the runtime.
   *
   * @internal For the compiler's tests only: a model compiled with it may hold nodes no engine runs.
   */
  runtimeSupport?: boolean;
}

/**
 * Compiles BPMN 2.0 XML (Camunda Modeler / Zeebe flavour) into the engine's graph IR.
 *
 * @returns a deeply frozen model whose `digest` changes with behaviour, not with layout.
 * @throws ModelError listing every issue found (malformed XML, dangling references, expressions that
 *   do not parse, elements Thresher does not execute yet); the first issue is the message.
 * @example
 * ```ts
 * const model = await compile(readFileSync('order.bpmn', 'utf8'));
 * model.processes.get('order-fulfilment')?.nodes.get('validate')?.type; // 'serviceTask'
 * ```
 */
export async function compile(xml: string, options: CompileOptions = {}): Promise<ProcessModel> {
  if (typeof xml !== 'string') {
    throw new ModelError([{ elementId: null, elementType: null, message: 'the model must be BPMN XML text' }]);
  }
  const issues = new IssueCollector(new LineIndex(xml));
  const doctype = doctypeAt(xml);
  if (doctype !== undefined) {
    const message =
      'the model declares a DOCTYPE: DTDs and entities are not accepted in a BPMN model (they can read files or expand without bound); remove the <!DOCTYPE …> declaration';
    issues.errorAt(null, null, message, issues.lines.lineAt(doctype));
    throw new ModelError(issues.issues);
  }
  let document: ModdleDocument;
  try {
    document = await readXml(normalizeAttributeSpacing(xml));
  } catch (error) {
    throw new ModelError(unreadable(error, issues, xml));
  }
  const definitions = document.rootElement;
  const unresolved = collectReadWarnings(document.warnings, issues);
  checkForeignExtensions(definitions, issues);
  const elements = children(definitions, 'rootElements').filter((element) => element.$type === 'bpmn:Process');
  const anyExecutable = elements.some((element) => element.isExecutable === true);
  const processes = new Map<string, ProcessDef>();
  for (const element of elements) {
    const part = issues.fork();
    const process = compileProcess(element, part, unresolved);
    if (process && options.runtimeSupport !== false) {
      // One gate for what the runtime cannot execute yet, naming each element ("… is not supported yet"),
      // each issue in front of its element's own: the first issue stays the first element's in document order.
      part.errorsInPlace(unsupportedIssues(process));
    }
    const documentation = !options.allowNonExecutable && element.isExecutable !== true;
    if (documentation && part.issues.length > 0) {
      // Zeebe does not deploy non-executable processes; keep such a pool out, but say so.
      issues.absorb(part, (issue) => `non-executable process "${idOf(element)}" left out: ${format(issue)}`);
      continue;
    }
    issues.absorb(part);
    if (process) processes.set(process.id, process);
  }
  issues.issues.push(...straightThroughLoops(processes));
  if (elements.length === 0) {
    issues.errorAt(idOf(definitions) ?? null, definitions.$type, 'the definitions contain no bpmn:Process');
  } else if (!anyExecutable && !options.allowNonExecutable) {
    const first = elements[0];
    issues.errorAt(
      (first && idOf(first)) ?? null,
      'bpmn:Process',
      'no executable process: set isExecutable="true" on the process Thresher should run',
    );
  }
  if (issues.issues.length > 0) throw new ModelError(issues.issues);
  const definitionId = idOf(definitions) ?? [...processes.keys()][0] ?? '';
  return deepFreeze({
    definitionId,
    digest: digestModel(definitionId, processes),
    processes,
    warnings: issues.warnings,
  });
}

/** The issue of XML bpmn-moddle could not read at all. */
function unreadable(error: unknown, issues: IssueCollector, xml: string): ModelIssue[] {
  const message = error instanceof Error ? error.message : String(error);
  const root = rootTag(xml);
  if (message.startsWith('failed to parse document') && root && !isBpmnRoot(root)) {
    issues.errorAt(null, root.name, rootMessage(root), issues.lines.lineAt(root.offset));
    return issues.issues;
  }
  if (message.startsWith('unparsable content')) {
    unparsable(message, issues, true);
    return issues.issues;
  }
  // "failed to parse document as <bpmn:Definitions>": the reason is the first read warning.
  const warnings = (error as { warnings?: unknown }).warnings;
  const reason = Array.isArray(warnings) ? (warnings[0] as { message?: unknown } | undefined)?.message : undefined;
  if (typeof reason === 'string') {
    unparsable(reason, issues);
    for (const issue of issues.issues) issue.message = `${message}: ${issue.message}`;
  } else {
    issues.errorAt(null, null, message);
  }
  return issues.issues;
}

function isBpmnRoot(root: RootTag): boolean {
  return root.namespace === BPMN_NAMESPACE && /(^|:)definitions$/.test(root.name);
}

/** Why a root element is not BPMN 2.0 definitions: the namespace found and the one expected. */
function rootMessage(root: RootTag): string {
  if (!/(^|:)definitions$/.test(root.name)) {
    return `the root element <${root.name}> is not BPMN definitions: a BPMN 2.0 model's root is <bpmn:definitions xmlns:bpmn="${BPMN_NAMESPACE}">`;
  }
  const found = root.namespace === undefined ? 'in no namespace' : `in namespace "${root.namespace}"`;
  return `the root element <${root.name}> is ${found}; BPMN 2.0 models use "${BPMN_NAMESPACE}"`;
}

function format(issue: ModelIssue): string {
  return `${issue.elementType ?? 'element'} "${issue.elementId ?? '?'}": ${issue.message}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const item of value.values()) deepFreeze(item);
  } else {
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return Object.freeze(value);
}
