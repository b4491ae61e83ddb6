/**
 * `POST /decision-definitions/evaluation`: a deployed decision evaluated on its own. Keys are the deployment's, as
 * `POST /deployments` gave them (the DRD at place 1 of its DMN file, its decisions from place 2 in file order);
 * an evaluation is kept by no store, so its key is a passing one and each decision it evaluated is `KEY-INDEX`.
 */
import { type DecisionOutcome, deploymentKind, type Engine, readDmn } from '@thresher/engine';
import { digestBits, passingKey, readKey, resourceKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import { readDecisionEvaluation } from '../schemas/decisions.js';
import { DEFAULT_TENANT, readTenant } from '../tenants.js';

const evaluateDecision: Operation = async ({ engine, json }) => {
  const request = readDecisionEvaluation(await json());
  readTenant(request.tenantId, '$.tenantId');
  const variables = request.variables ?? {};
  let outcome: DecisionOutcome;
  if ('decisionDefinitionKey' in request) {
    const key = request.decisionDefinitionKey;
    const parts = readKey(key, '$.decisionDefinitionKey');
    const found = parts.kind === 'resource' ? await decisionOfKey(engine, parts.digestBits, parts.index) : undefined;
    if (found === undefined) throw notFound('decision definition', key);
    outcome = await engine.evaluateDecision(found.decisionId, { variables, digest: found.digest });
  } else {
    try {
      outcome = await engine.evaluateDecision(request.decisionDefinitionId, { variables });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'THRESHER_NOT_FOUND') throw error;
      throw new Problem(
        ProblemKind.NotFound,
        `no decision definition with decision id "${request.decisionDefinitionId}" was deployed`,
      );
    }
  }
  const order = await decisionOrder(engine, outcome.digest);
  const keyOf = (decisionId: string) => resourceKey(outcome.digest, order.indexOf(decisionId) + 2);
  const evaluationKey = passingKey();
  const failed = outcome.failure !== undefined;
  return {
    status: 200,
    body: {
      decisionDefinitionId: outcome.decisionId,
      decisionDefinitionName: outcome.decisionName,
      decisionDefinitionVersion: outcome.version,
      decisionDefinitionKey: keyOf(outcome.decisionId),
      decisionRequirementsId: outcome.definitionId,
      decisionRequirementsKey: resourceKey(outcome.digest, 1),
      output: failed ? '' : JSON.stringify(outcome.result ?? null),
      failedDecisionDefinitionId: failed ? (outcome.evaluated.at(-1)?.decisionId ?? outcome.decisionId) : '',
      failureMessage: outcome.failure ?? '',
      tenantId: DEFAULT_TENANT,
      decisionInstanceKey: evaluationKey,
      decisionEvaluationKey: evaluationKey,
      evaluatedDecisions: outcome.evaluated.map((decision, index) => ({
        decisionDefinitionId: decision.decisionId,
        decisionDefinitionName: decision.decisionName,
        decisionDefinitionVersion: outcome.version,
        decisionDefinitionType: decision.decisionType.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase(),
        decisionDefinitionKey: keyOf(decision.decisionId),
        decisionEvaluationInstanceKey: `${evaluationKey}-${index + 1}`,
        output: JSON.stringify(decision.output ?? null),
        tenantId: DEFAULT_TENANT,
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
      })),
    },
  };
};

/** The decision ids of a DMN deployment in file order: what their keys number. */
async function decisionOrder(engine: Engine, digest: string): Promise<string[]> {
  const deployment = await engine.deployment(digest);
  return deployment === undefined ? [] : [...readDmn(deployment.xml).decisions.keys()];
}

/** The decision a decision definition key names: its DMN deployment's digest and its id. */
async function decisionOfKey(engine: Engine, bits: bigint, index: number) {
  if (index < 2) return undefined;
  for (const deployment of await engine.deployments()) {
    if (deploymentKind(deployment) !== 'dmn' || digestBits(deployment.digest) !== bits) continue;
    const decisionId = [...readDmn(deployment.xml).decisions.keys()][index - 2];
    if (decisionId !== undefined) return { digest: deployment.digest, decisionId };
  }
  return undefined;
}

export const decisionOperations = { evaluateDecision } satisfies Record<string, Operation>;
