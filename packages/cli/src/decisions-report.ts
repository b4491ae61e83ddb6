/**
 * How decisions read in the terminal: what `show` says of an instance's business rule tasks and what
 * `decide` prints — the decision, the inputs as evaluated, the rules that matched and the result.
 *
 * @module
 */
import type { EvaluatedDecisionRecord } from '@thresher/checkpoint';
import type { DecisionEvaluationView } from '@thresher/engine';
import { formatValue } from './output.js';

/** One decision's evaluation: its inputs and matched rules, indented under a heading line. */
export function formatEvaluated(evaluated: EvaluatedDecisionRecord, indent: string): string[] {
  const lines = [`${indent}${evaluated.decisionId}${nameOf(evaluated)} (${evaluated.decisionType})`];
  for (const input of evaluated.inputs) {
    lines.push(`${indent}  input ${input.name || input.id} = ${formatValue(input.value)}`);
  }
  if (evaluated.decisionType === 'decisionTable') {
    if (evaluated.matchedRules.length === 0) lines.push(`${indent}  no rule matched`);
    for (const rule of evaluated.matchedRules) {
      const outputs = rule.outputs.map((output) => `${output.name || output.id} = ${formatValue(output.value)}`);
      lines.push(`${indent}  rule ${rule.ruleIndex} ${rule.ruleId}: ${outputs.join(', ')}`);
    }
  }
  lines.push(`${indent}  → ${formatValue(evaluated.output)}`);
  return lines;
}

function nameOf(evaluated: EvaluatedDecisionRecord): string {
  return evaluated.decisionName && evaluated.decisionName !== evaluated.decisionId
    ? ` "${evaluated.decisionName}"`
    : '';
}

/** An instance's decision evaluations, oldest first, each with the decisions of its graph. */
export function formatDecisionViews(views: readonly DecisionEvaluationView[]): string[] {
  if (views.length === 0) return [];
  const lines = ['Decisions:'];
  for (const view of views) {
    const tag = view.versionTag === undefined ? '' : ` [${view.versionTag}]`;
    const outcome = view.failure === undefined ? `= ${formatValue(view.result)}` : `failed: ${view.failure}`;
    lines.push(`  ${view.elementId}: ${view.decisionId} version ${view.version}${tag} ${outcome}`);
    for (const evaluated of view.evaluated) lines.push(...formatEvaluated(evaluated, '    '));
  }
  return lines;
}
