/**
 * `POST /decision-definitions/evaluation`: a deployed decision evaluated on its own. Keys are the deployment's, as
 * `POST /deployments` gave them (the DRD at place 1 of its DMN file, its decisions from place 2 in file order);
 * an evaluation is kept by no store, so its key is a passing one and each decision it evaluated is `KEY-INDEX`.
 */

import type { DecisionOutcome } from '@thresher/engine';
import { decisionIdsOf } from '../dmn-decisions.js';
import { passingKey, resourceKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { decisionType, evaluatedDetail } from '../projection/decision-rows.js';
import { readDecisionEvaluation } from '../schemas/decisions.js';
import { DEFAULT_TENANT, readTenant } from '../tenants.js';
import { decisionOfKey } from './resources.js';

const evaluateDecision: Operation = async ({ engine, catalog, json }) => {
  const request = readDecisionEvaluation(await json());
  readTenant(request.tenantId, '$.tenantId');
  const variables = request.variables ?? {};
  let outcome: DecisionOutcome;
  if ('decisionDefinitionKey' in request) {
    const found = await decisionOfKey(engine, catalog, request.decisionDefinitionKey, '$.decisionDefinitionKey');
    outcome = await engine.evaluateDecision(found.id, { variables, digest: found.deployment.digest });
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
  const deployment = await engine.deployment(outcome.digest);
  const order = deployment === undefined ? [] : decisionIdsOf(deployment);
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
        decisionDefinitionType: decisionType(decision.decisionType),
        decisionDefinitionKey: keyOf(decision.decisionId),
        decisionEvaluationInstanceKey: `${evaluationKey}-${index + 1}`,
        output: JSON.stringify(decision.output ?? null),
        tenantId: DEFAULT_TENANT,
        ...evaluatedDetail(decision),
      })),
    },
  };
};

export const decisionOperations = { evaluateDecision } satisfies Record<string, Operation>;
