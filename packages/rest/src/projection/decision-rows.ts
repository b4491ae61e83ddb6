/**
 * Decision instance rows: one per decision evaluated in an instance's business rule tasks (a called decision and each
 * it required), keyed `decisionEvaluationKey-N` as Zeebe keys a decision instance, the evaluation's key derived from
 * the instance and the evaluation's place in its log. The row's body is the search's item; `detail` beside it adds
 * the inputs and matched rules `GET /decision-instances/{key}` answers with.
 */
import type { EvaluatedDecisionRecord, SearchRow } from '@thresher/checkpoint';
import type { DecisionEvaluationView, Engine } from '@thresher/engine';
import { decisionIdsOf } from '../dmn-decisions.js';
import { instanceKey, namedKey, resourceKey } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { KINDS, rowOf } from './instance-rows.js';

/** The field a decision instance's row keeps its whole `GET` answer in, beside its body. */
export const DETAIL = 'detail';

/** What a decision's evaluation read and matched, as Camunda answers it: inputs, and matched rules with their outputs. */
export function evaluatedDetail(decision: EvaluatedDecisionRecord) {
  return {
    evaluatedInputs: decision.inputs.map((input) => ({
      inputId: input.id,
      inputName: input.name,
      inputValue: JSON.stringify(input.value ?? null),
    })),
    matchedRules: decision.matchedRules.map((rule) => ({
      ruleId: rule.ruleId,
      ruleIndex: rule.ruleIndex,
      evaluatedOutputs: rule.outputs.map((output) => ({
        outputId: output.id,
        outputName: output.name,
        outputValue: JSON.stringify(output.value ?? null),
      })),
    })),
  };
}

/** Zeebe's decision type of a DMN decision's logic: `decisionTable` → `DECISION_TABLE`. */
export function decisionType(type: string): string {
  return type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

export async function decisionRows(
  engine: Engine,
  serial: number,
  decisions: readonly DecisionEvaluationView[],
  processDefinitionKey: string | undefined,
): Promise<SearchRow[]> {
  const rows: SearchRow[] = [];
  for (const [index, evaluation] of decisions.entries()) {
    const deployment = await engine.deployment(evaluation.digest);
    const order = deployment === undefined ? [] : decisionIdsOf(deployment);
    const evaluationKey = namedKey(serial, 'evaluation', String(index));
    const failedAt = evaluation.failure === undefined ? -1 : evaluation.evaluated.length - 1;
    for (const [place, decision] of evaluation.evaluated.entries()) {
      const key = `${evaluationKey}-${place + 1}`;
      const at = order.indexOf(decision.decisionId);
      const body = {
        decisionEvaluationInstanceKey: key,
        state: place === failedAt ? 'FAILED' : 'EVALUATED',
        evaluationDate: new Date(evaluation.evaluatedAt).toISOString(),
        ...(place === failedAt ? { evaluationFailure: evaluation.failure } : {}),
        decisionDefinitionId: decision.decisionId,
        decisionDefinitionName: decision.decisionName,
        decisionDefinitionVersion: evaluation.version,
        decisionDefinitionType: decisionType(decision.decisionType),
        result: JSON.stringify(decision.output ?? null),
        tenantId: DEFAULT_TENANT,
        decisionEvaluationKey: evaluationKey,
        ...(processDefinitionKey === undefined ? {} : { processDefinitionKey }),
        processInstanceKey: instanceKey(serial),
        ...(at < 0 ? {} : { decisionDefinitionKey: resourceKey(evaluation.digest, at + 2) }),
      };
      const detail = { ...body, ...evaluatedDetail(decision) };
      const row = rowOf(KINDS.decisionInstance, key, body);
      rows.push({ ...row, fields: { ...row.fields, [DETAIL]: JSON.stringify(detail) } });
    }
  }
  return rows;
}
