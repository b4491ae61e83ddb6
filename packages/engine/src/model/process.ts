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
import { NodeType, type ProcessDef } from './types.js';

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
  const tag = readExtensions(element, ['zeebe:VersionTag'], issues).get('zeebe:VersionTag');
  const versionTag = tag ? str(tag, 'value')?.trim() : undefined;
  const context: ProcessContext = {
    issues,
    unresolved,
    nodes: new Map(),
    flows: new Map(),
    boundaries: new Map(),
    eventSubProcesses: new Map(),
    compensation: new Map(),
    cancels: new Set(),
  };
  const { startNodes, eventStartNodes, refusedStart } = compileContainer(context, element, id, 0, 'process');
  if (startNodes.length === 0 && eventStartNodes.length === 0 && !refusedStart) {
    issues.error(
      element,
      'the process has no start event: it needs a none start event (bpmn:StartEvent without an event definition) or a message, timer or signal start event',
    );
  } else if (startNodes.length > 1) {
    issues.error(element, `the process has ${startNodes.length} none start events; Thresher needs exactly one`);
  }
  checkUniqueStartNames(context, eventStartNodes);
  // The event fields are left out, not empty, when the process has no such events: a model without
  // events compiles to exactly the IR (and digest) it always did.
  return {
    id,
    name: str(element, 'name') || null,
    executable: element.isExecutable === true,
    // Left out when absent, like the event fields, so a model without one keeps its digest.
    ...(versionTag ? { versionTag } : {}),
    startNodes,
    ...(eventStartNodes.length > 0 ? { eventStartNodes } : {}),
    ...(context.boundaries.size > 0 ? { boundaries: context.boundaries } : {}),
    ...(context.eventSubProcesses.size > 0 ? { eventSubProcesses: context.eventSubProcesses } : {}),
    ...(context.compensation.size > 0 ? { compensation: context.compensation } : {}),
    nodes: context.nodes,
    flows: context.flows,
  };
}

/**
 * Two message (or signal) start events of one process with the same constant name would compete for
 * every message; Zeebe refuses that, and so does Thresher.
 */
function checkUniqueStartNames(context: ProcessContext, eventStartNodes: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const id of eventStartNodes) {
    const node = context.nodes.get(id);
    if (node?.type !== NodeType.StartEvent) continue;
    const event = node.event;
    if (event?.kind !== 'message' && event?.kind !== 'signal') continue;
    const key = `${event.kind}:${event.name.source}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, id);
      continue;
    }
    context.issues.errorAt(
      id,
      'bpmn:StartEvent',
      `start events "${first}" and "${id}" both start on ${event.kind} ${event.name.source}; the names of a process's ${event.kind} start events must differ`,
    );
  }
}
