/**
 * Compiles one `bpmn:Process` into a `ProcessDef`.
 *
 * @module
 */
import { compileContainer, type ProcessContext } from './container.js';
import { readExtensions } from './extensions.js';
import type { IssueCollector } from './issues.js';
import { idOf, type ModdleElement, str } from './moddle.js';
import type { UnresolvedReferences } from './read-warnings.js';
import type { ProcessDef } from './types.js';

/**
 * Compiles a process, recording every problem in `issues`.
 *
 * @returns the process definition (meaningful only if no issue was recorded), or null without an id.
 */
export function compileProcess(
  element: ModdleElement,
  issues: IssueCollector,
  unresolved: UnresolvedReferences,
): ProcessDef | null {
  const id = idOf(element);
  if (!id) {
    issues.error(element, 'bpmn:Process has no id');
    return null;
  }
  readExtensions(element, [], issues);
  const context: ProcessContext = { issues, unresolved, nodes: new Map(), flows: new Map() };
  const { startNodes, refusedStart } = compileContainer(context, element, id, 0);
  if (startNodes.length === 0 && !refusedStart) {
    issues.error(element, 'the process has no none start event (bpmn:StartEvent without an event definition)');
  } else if (startNodes.length > 1) {
    issues.error(element, `the process has ${startNodes.length} none start events; Thresher needs exactly one`);
  }
  return {
    id,
    name: str(element, 'name') || null,
    executable: element.isExecutable === true,
    startNodes,
    nodes: context.nodes,
    flows: context.flows,
  };
}
