/**
 * What `inspect` says of a DMN file: its decisions (kind, requirements, a table's hit policy, inputs,
 * outputs and rule count), its decision services and knowledge models, and its warnings.
 *
 * @module
 */
import type { DmnDefinitions } from '@thresher/engine';
import { formatTable } from './output.js';

export function formatDmn(file: string, definitions: DmnDefinitions): string {
  const name = definitions.name ? ` "${definitions.name}"` : '';
  const lines = [
    `${file}: DMN definitions ${definitions.id}${name}, namespace ${definitions.namespace}, digest ${definitions.digest.slice(0, 12)}`,
  ];
  const decisions = [...definitions.decisions.values()];
  lines.push(
    '',
    ...formatTable(
      ['DECISION', 'NAME', 'KIND', 'REQUIRES', 'VERSION TAG'],
      decisions.map((decision) => [
        decision.id,
        decision.name,
        decision.table
          ? `decision table ${decision.table.hitPolicy}${aggregation(decision.table.aggregation)}`
          : decision.decisionType,
        decision.requires.join(', '),
        decision.versionTag ?? '',
      ]),
    )
      .split('\n')
      .map((line) => `  ${line}`),
  );
  for (const decision of decisions) {
    const table = decision.table;
    if (!table) continue;
    lines.push('', `decision table ${decision.id}: ${table.rules} ${table.rules === 1 ? 'rule' : 'rules'}`);
    for (const input of table.inputs) {
      const label = input.label ? `${input.label}: ` : '';
      lines.push(`  input  ${label}${input.expression}${input.typeRef ? ` (${input.typeRef})` : ''}`);
    }
    for (const output of table.outputs) {
      const label = output.name || output.label || output.id;
      lines.push(`  output ${label}${output.typeRef ? ` (${output.typeRef})` : ''}`);
    }
  }
  for (const [kind, list] of [
    ['decision service', definitions.decisionServices],
    ['knowledge model', definitions.knowledgeModels],
  ] as const) {
    for (const invocable of list.values()) {
      lines.push('', `${kind} ${invocable.id} "${invocable.name}" (${invocable.parameters.join(', ')})`);
    }
  }
  if (definitions.warnings.length > 0) {
    lines.push('', 'warnings:');
    for (const warning of definitions.warnings) {
      lines.push(`  ${warning.elementId ? `${warning.elementId}: ` : ''}${warning.message}`);
    }
  }
  return lines.join('\n');
}

function aggregation(value: string | undefined): string {
  return value === undefined ? '' : ` ${value}`;
}

/** The JSON document `inspect --json` prints for a DMN file. */
export function dmnDocument(file: string, definitions: DmnDefinitions): unknown {
  return {
    status: 'ok',
    kind: 'dmn',
    file,
    definitionId: definitions.id,
    name: definitions.name,
    namespace: definitions.namespace,
    digest: definitions.digest,
    decisions: [...definitions.decisions.values()],
    decisionServices: [...definitions.decisionServices.values()],
    knowledgeModels: [...definitions.knowledgeModels.values()],
    warnings: definitions.warnings,
  };
}
