/** `POST /decision-definitions/evaluation`, by decision id (its latest version) or by decision definition key. */
import { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from './read.js';

const common = { variables: z.record(z.string(), z.unknown()).nullish(), tenantId: z.string().optional() };
const ById = z.strictObject({ decisionDefinitionId: z.string().min(1), ...common });
const ByKey = z.strictObject({ decisionDefinitionKey: z.string().min(1), ...common });

export type DecisionEvaluationRequest = z.output<typeof ById> | z.output<typeof ByKey>;

export function readDecisionEvaluation(body: unknown): DecisionEvaluationRequest {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  if ('decisionDefinitionId' in fields && 'decisionDefinitionKey' in fields) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      'the decision evaluation names a decision by decisionDefinitionId or by decisionDefinitionKey, not both',
    );
  }
  return readAs('decisionDefinitionKey' in fields ? ByKey : ById, body, 'the decision evaluation');
}
