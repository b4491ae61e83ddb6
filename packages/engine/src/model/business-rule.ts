/**
 * `bpmn:businessRuleTask` as Zeebe reads it: a DMN decision the engine evaluates (`zeebe:calledDecision`), or
 * a job a worker runs (`zeebe:taskDefinition`) — exactly one of the two.
 *
 * @module
 */
import { readBinding } from './calls.js';
import { compileValue } from './expression.js';
import type { NodeFrame } from './frames.js';
import type { IssueCollector } from './issues.js';
import { type ModdleElement, str } from './moddle.js';
import type { BusinessRuleTaskNode, Node } from './node-types.js';
import { NodeType } from './types.js';

export const CALLED_DECISION = 'zeebe:CalledDecision';

const EXAMPLE = '<zeebe:calledDecision decisionId="risk" resultVariable="risk" />';

/**
 * Compiles a business rule task; `job` compiles the `zeebe:taskDefinition` variant.
 *
 * @returns the node, or null when an issue was recorded.
 */
export function businessRuleTask(
  element: ModdleElement,
  frame: NodeFrame,
  extensions: Map<string, ModdleElement>,
  job: () => Node | null,
  issues: IssueCollector,
): Node | null {
  const called = extensions.get(CALLED_DECISION);
  const definition = extensions.get('zeebe:TaskDefinition');
  if (called && definition) {
    issues.error(
      element,
      'bpmn:BusinessRuleTask has both zeebe:calledDecision and zeebe:taskDefinition: keep one (the decision the engine evaluates, or the job a worker runs), as Zeebe requires',
    );
    return null;
  }
  if (definition) return job();
  if (!called) {
    issues.error(
      element,
      `bpmn:BusinessRuleTask needs a zeebe:calledDecision (a DMN decision the engine evaluates: ${EXAMPLE}) or a zeebe:taskDefinition (a job a worker runs)`,
    );
    return null;
  }
  return calledDecision(element, frame, called, issues);
}

function calledDecision(
  element: ModdleElement,
  frame: NodeFrame,
  called: ModdleElement,
  issues: IssueCollector,
): BusinessRuleTaskNode | null {
  const id = str(called, 'decisionId')?.trim();
  const resultVariable = str(called, 'resultVariable')?.trim();
  if (!id)
    issues.error(
      element,
      `zeebe:calledDecision needs a decisionId (a decision id, or "=" and a FEEL expression): ${EXAMPLE}`,
    );
  if (!resultVariable)
    issues.error(element, `zeebe:calledDecision needs a resultVariable (where the decision's result goes): ${EXAMPLE}`);
  const binding = readBinding(element, called, 'zeebe:calledDecision', issues);
  if (!id || !resultVariable) return null;
  const decisionId = compileValue(id, element, 'zeebe:calledDecision decisionId', issues);
  return decisionId ? { ...frame, type: NodeType.BusinessRuleTask, decisionId, resultVariable, binding } : null;
}
