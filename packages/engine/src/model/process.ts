/**
 * Compiles one `bpmn:Process` into a `ProcessDef`.
 *
 * @module
 */
import { compileContainer, type ProcessContext } from './container.js';
import { readExtensions } from './extensions.js';
import type { IssueCollector } from './issues.js';
import { LISTENERS_EXTENSION, readListeners } from './listeners.js';
import { idOf, type ModdleElement, str } from './moddle.js';
import type { ProcessDef } from './process-types.js';
import type { UnresolvedReferences } from './read-warnings.js';
import { type ExecutionListeners, NodeType } from './types.js';

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
  const tag = readExtensions(element, ['zeebe:VersionTag', LISTENERS_EXTENSION], issues).get('zeebe:VersionTag');
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
  const listeners = readListeners(element, 'process', issues);
  if (listeners) checkProcessListeners(element, listeners, context, issues);
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
    ...(listeners ? { listeners } : {}),
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

/**
 * Process listeners Thresher cannot run as Zeebe runs them, refused by name. A timer start event's instance
 * waits at its start event before the process starts (the next occurrence is an instance already), so a start
 * listener would run before the timer fires, where Zeebe runs it when it fires. A terminate end event in the
 * process ends a Thresher instance `terminated`, where Zeebe completes the process and runs its end listeners.
 */
function checkProcessListeners(
  element: ModdleElement,
  listeners: ExecutionListeners,
  context: ProcessContext,
  issues: IssueCollector,
): void {
  const id = idOf(element);
  const top = [...context.nodes.values()].filter((node) => node.container === id);
  const timerStart = top.find((node) => node.type === NodeType.StartEvent && node.event?.kind === 'timer');
  if (listeners.start && timerStart) {
    issues.error(
      element,
      `zeebe:executionListener eventType="start" on a process with the timer start event "${timerStart.id}" is not supported yet: a Thresher instance waits at its timer start event before the process starts, so the listener would run before the timer fires (Zeebe runs it when the timer fires); put the listener on the element after the start event`,
    );
  }
  const terminate = top.find((node) => node.type === NodeType.TerminateEndEvent);
  if (listeners.end && terminate) {
    issues.error(
      element,
      `zeebe:executionListener eventType="end" on a process with the terminate end event "${terminate.id}" is not supported yet: Thresher ends an instance terminated there, where Zeebe completes the process and runs its end listeners; put the listener on the terminate end event (an end listener runs before it terminates)`,
    );
  }
}
