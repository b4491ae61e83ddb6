/**
 * A deployed decision evaluated on its own, as Zeebe's decision evaluation API does: the latest version of its id,
 * or the version a DMN deployment holds.
 */
import { checkEncodable, type Variables } from '@thresher/checkpoint';
import { NotFoundError } from '../../common/errors.js';
import { decide } from '../../core/jobs/decisions.js';
import type { DecisionOutcome } from '../base/types.js';
import type { EngineParts } from './engine-parts.js';

export async function evaluateDecision(
  parts: EngineParts,
  decisionId: string,
  options: { variables?: Variables; digest?: string },
): Promise<DecisionOutcome> {
  const variables = options.variables ?? {};
  checkEncodable(variables, '$variables');
  const look = () =>
    options.digest === undefined
      ? parts.decisions.find(decisionId, { kind: 'latest' }, '')
      : parts.decisions.findIn(decisionId, options.digest);
  await parts.decisions.ready();
  let found = look();
  // Deployed by another process since the book last read the store: a miss makes the next look read it again.
  if (typeof found === 'string') {
    await parts.decisions.ready();
    found = look();
  }
  if (typeof found === 'string') throw new NotFoundError('decision', decisionId);
  const evaluation = decide(found.definitions, decisionId, variables, () => parts.clock.now());
  return {
    decisionId,
    decisionName: found.definitions.decisions.get(decisionId)?.name ?? decisionId,
    version: found.version,
    ...(found.versionTag === undefined ? {} : { versionTag: found.versionTag }),
    definitionId: found.definitionId,
    digest: found.digest,
    evaluated: evaluation.evaluated,
    ...(evaluation.failure === undefined ? { result: evaluation.result } : { failure: evaluation.failure }),
  };
}
