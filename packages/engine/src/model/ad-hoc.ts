/**
 * `bpmn:adHocSubProcess` (Camunda 8.8): inner activities without start or end events, any of which may be
 * activated, any number of times — by `zeebe:adHoc activeElementsCollection` when the sub-process is entered,
 * or through the engine's API while it runs. Zeebe's rules (its `AdHocSubProcessValidator`): at least one
 * activity, no start or end events; an element with incoming flows is reached by them, never activated.
 *
 * @module
 */
import { compileExpression, compileRequiredExpression } from './expression.js';
import type { IssueCollector } from './issues.js';
import { bodyExpression, variableName } from './loops.js';
import { idOf, type ModdleElement, str } from './moddle.js';
import type { AdHocSpec, Node, SubProcessNode } from './node-types.js';
import { NodeType } from './types.js';

/** The extension element that configures it. */
export const AD_HOC_EXTENSION = 'zeebe:AdHoc';

/** Read the ad-hoc part of `element` (its `zeebe:adHoc`, completion condition and ordering); null on an issue. */
export function readAdHoc(
  element: ModdleElement,
  extension: ModdleElement | undefined,
  jobWorker: boolean,
  issues: IssueCollector,
): Omit<AdHocSpec, 'activatable'> | null {
  let ok = true;
  if (jobWorker) {
    issues.error(
      element,
      'an ad-hoc sub-process with a zeebe:taskDefinition (its job worker implementation, as an AI agent uses) is not run by Thresher yet: activate its elements by activeElementsCollection or engine.activateAdHocElements',
    );
    ok = false;
  }
  const collection = extension ? str(extension, 'activeElementsCollection')?.trim() : undefined;
  const activeElements = collection
    ? compileExpression(collection, element, 'zeebe:adHoc activeElementsCollection', issues)
    : null;
  if (collection && !activeElements) ok = false;
  const collectionText = extension ? str(extension, 'outputCollection')?.trim() || undefined : undefined;
  const outputCollection = variableName('zeebe:adHoc', 'outputCollection', collectionText, element, issues);
  if (collectionText && !outputCollection) ok = false;
  const outputText = extension ? str(extension, 'outputElement')?.trim() : undefined;
  const outputElement = outputText
    ? compileRequiredExpression(outputText, element, 'zeebe:adHoc outputElement', issues)
    : null;
  if (outputText && !outputElement) ok = false;
  if (outputElement && !outputCollection) {
    issues.error(element, 'zeebe:adHoc outputElement needs an outputCollection to collect into');
    ok = false;
  }
  const completionCondition = bodyExpression(element, element, 'completionCondition', issues);
  const ordering = str(element, 'ordering');
  if (ordering === 'Sequential') {
    issues.warn(
      idOf(element) ?? null,
      'ordering="Sequential" on an ad-hoc sub-process is not enforced, as in Zeebe: the elements activated together run side by side',
    );
  }
  if (!ok) return null;
  return {
    activeElements,
    completionCondition,
    cancelRemaining: element.cancelRemainingInstances !== false,
    outputCollection,
    outputElement,
  };
}

/**
 * Check the inner elements of the ad-hoc sub-process `node` (compiled, in `nodes`) and list those an activation
 * may start at: activities, events and gateways without incoming flows — not boundary events, event
 * sub-processes or compensation handlers. False when an issue was recorded.
 */
export function checkAdHocInside(
  element: ModdleElement,
  node: SubProcessNode,
  nodes: ReadonlyMap<string, Node>,
  issues: IssueCollector,
): string[] | null {
  const inner = [...nodes.values()].filter((each) => each.container === node.id);
  let ok = true;
  for (const each of inner) {
    if (
      each.type === NodeType.StartEvent ||
      each.type === NodeType.EndEvent ||
      each.type === NodeType.TerminateEndEvent
    ) {
      issues.errorAt(
        each.id,
        null,
        `an ad-hoc sub-process has no ${each.type === NodeType.StartEvent ? 'start' : 'end'} events, as in Zeebe: its elements are activated, and it completes by its completion condition or when they are done`,
      );
      ok = false;
    }
  }
  const activatable = inner
    .filter(
      (each) => each.incoming.length === 0 && each.type !== NodeType.BoundaryEvent && each.type !== NodeType.StartEvent,
    )
    .filter((each) => !(each.type === NodeType.SubProcess && each.triggeredByEvent) && !each.forCompensation)
    .map((each) => each.id);
  const activities = inner.filter(
    (each) => ACTIVITIES.has(each.type) && !(each.type === NodeType.SubProcess && each.triggeredByEvent),
  );
  if (activities.length === 0) {
    issues.error(element, 'an ad-hoc sub-process must have at least one activity, as in Zeebe');
    ok = false;
  }
  return ok ? activatable : null;
}

const ACTIVITIES: ReadonlySet<string> = new Set([
  NodeType.Task,
  NodeType.ManualTask,
  NodeType.ServiceTask,
  NodeType.ScriptTask,
  NodeType.UserTask,
  NodeType.SubProcess,
  NodeType.ReceiveTask,
  NodeType.SendTask,
  NodeType.CallActivity,
  NodeType.BusinessRuleTask,
]);
