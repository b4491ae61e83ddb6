/**
 * `bpmn:callActivity` as Zeebe reads it: the called process comes from `zeebe:calledElement` (never
 * from BPMN's own `calledElement` attribute), with its version binding and variable propagation.
 *
 * @module
 */
import { compileValue } from './expression.js';
import type { NodeFrame } from './frames.js';
import type { IssueCollector } from './issues.js';
import { idOf, type ModdleElement, str } from './moddle.js';
import type { Binding, CallActivityNode } from './node-types.js';
import { type Expression, NodeType } from './types.js';

const BINDING_TYPES = ['latest', 'deployment', 'versionTag'] as const;

/**
 * Compiles a call activity, recording an issue for each part that is wrong. The node is returned even
 * then (a refused process id as FEEL `null`): the model is refused all the same, and the node lets the
 * runtime gate still name the call activity in its place.
 */
export function callActivity(
  element: ModdleElement,
  frame: NodeFrame,
  extensions: Map<string, ModdleElement>,
  issues: IssueCollector,
): CallActivityNode {
  const called = extensions.get('zeebe:CalledElement');
  const calledElement = called ? processId(element, called, issues) : missingCalledElement(element, issues);
  return {
    ...frame,
    type: NodeType.CallActivity,
    calledElement: calledElement ?? { source: 'null', elementId: idOf(element) ?? '' },
    binding: called ? readBinding(element, called, 'zeebe:calledElement', issues) : { kind: 'latest' },
    // Zeebe's defaults: both directions propagate every variable unless switched off.
    propagateAllChildVariables: called?.propagateAllChildVariables !== false,
    propagateAllParentVariables: called?.propagateAllParentVariables !== false,
  };
}

/** No `zeebe:calledElement`: say what to write, taking the id from BPMN's attribute when there is one. */
function missingCalledElement(element: ModdleElement, issues: IssueCollector): null {
  const attribute = str(element, 'calledElement')?.trim();
  issues.error(
    element,
    attribute
      ? `calledElement="${attribute}" is BPMN's attribute, which Zeebe does not read: write <zeebe:calledElement processId="${attribute}" /> in the call activity's extensionElements`
      : 'bpmn:CallActivity needs a zeebe:calledElement processId: write <zeebe:calledElement processId="child-process" /> in its extensionElements (the id of the process to call, or "=" and a FEEL expression)',
  );
  return null;
}

/** `processId`: a static id (as a FEEL string) or `=` FEEL; null, with an issue, when it is missing or does not parse. */
function processId(element: ModdleElement, called: ModdleElement, issues: IssueCollector): Expression | null {
  const text = str(called, 'processId')?.trim();
  const legacy = str(called, 'processIdExpression')?.trim();
  const attribute = str(element, 'calledElement')?.trim();
  if (!text) {
    const fix = legacy ? `="=${legacy.replace(/^=\s*/, '')}"` : `="${attribute || 'child-process'}"`;
    const why = legacy ? 'processIdExpression is not read by Zeebe' : 'needs a processId';
    issues.error(
      element,
      `zeebe:calledElement ${why}: write processId${fix} (a process id, or "=" and a FEEL expression)`,
    );
    return null;
  }
  if (legacy) {
    issues.warn(
      idOf(element) ?? null,
      `zeebe:calledElement processIdExpression is ignored: Zeebe calls processId "${text}"`,
    );
  }
  if (attribute && attribute !== text) {
    issues.warn(
      idOf(element) ?? null,
      `calledElement="${attribute}" (BPMN's attribute) is ignored: Thresher calls zeebe:calledElement processId "${text}", as Zeebe does`,
    );
  }
  const businessId = str(called, 'businessId')?.trim();
  if (businessId) {
    issues.warn(
      idOf(element) ?? null,
      `zeebe:calledElement businessId "${businessId}" is ignored: business ids (Camunda 8.10) are not kept by Thresher, so the called instance gets none`,
    );
  }
  return compileValue(text, element, 'zeebe:calledElement processId', issues);
}

/**
 * `bindingType` and `versionTag` of a reference (`zeebe:calledElement`, `zeebe:calledDecision`): which version
 * it takes — the latest deployed (Zeebe's default), the one deployed with the caller, or the latest tagged.
 */
export function readBinding(
  element: ModdleElement,
  holder: ModdleElement,
  name: string,
  issues: IssueCollector,
): Binding {
  // bpmn-moddle answers Zeebe's default, `latest`, when the attribute is absent.
  const type = str(holder, 'bindingType')?.trim() || 'latest';
  const versionTag = str(holder, 'versionTag')?.trim();
  if (!(BINDING_TYPES as readonly string[]).includes(type)) {
    issues.error(
      element,
      `${name} bindingType "${type}" is not one of ${BINDING_TYPES.map((value) => `"${value}"`).join(', ')}`,
    );
    return { kind: 'latest' };
  }
  if (type === 'versionTag') {
    if (versionTag) return { kind: 'versionTag', versionTag };
    issues.error(
      element,
      `${name} bindingType="versionTag" needs a versionTag: write versionTag="v1.0" (the tag of the version to take)`,
    );
    return { kind: 'latest' };
  }
  if (versionTag) {
    issues.warn(
      idOf(element) ?? null,
      `${name} versionTag "${versionTag}" is ignored: bindingType is "${type}"; set bindingType="versionTag" to take that version`,
    );
  }
  return type === 'deployment' ? { kind: 'deployment' } : { kind: 'latest' };
}
