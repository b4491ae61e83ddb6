/**
 * Deploying a DMN file: parsed and checked as a whole (a DMN model error is the engine's `ModelError`, as a
 * BPMN one is), stored as a deployment like a BPMN file (the same file twice is one deployment, a changed one
 * the next version) under its definitions id with the `dmn:` prefix, and known to the decision book at once.
 *
 * @module
 */
import { type DmnDefinitions, DmnModelError, parseDmn } from '@thresher/dmn';

/** Whether a file is DMN (its root is a DMN 1.1–1.5 `definitions`) rather than BPMN. */
export { isDmn } from '@thresher/dmn';

import { ModelError } from '../../common/errors.js';
import type { DeployResult } from '../base/types.js';
import { DMN_DEFINITION } from '../deployments/decisions.js';
import type { EngineParts } from './engine-parts.js';

/** Parse a DMN file, refusing it with every problem as a `ModelError`. */
export function readDmn(xml: string): DmnDefinitions {
  try {
    return parseDmn(xml);
  } catch (error) {
    if (!(error instanceof DmnModelError)) throw error;
    throw new ModelError(
      error.issues.map((issue) => ({
        elementId: issue.elementId ?? null,
        elementType: issue.elementType ?? null,
        message: issue.message,
        ...(issue.line === undefined ? {} : { line: issue.line }),
      })),
    );
  }
}

export async function deployDmn(parts: EngineParts, xml: string): Promise<DeployResult> {
  const definitions = readDmn(xml);
  const deployment = await parts.repository.putDeployment({
    definitionId: `${DMN_DEFINITION}${definitions.id}`,
    digest: definitions.digest,
    xml,
    deployedAt: parts.clock.now(),
  });
  parts.decisions.add(deployment, definitions);
  await parts.decisions.ready();
  return {
    kind: 'dmn',
    definitionId: definitions.id,
    version: deployment.version,
    digest: deployment.digest,
    processes: [],
    decisions: [...definitions.decisions.values()].map((decision) => ({
      id: decision.id,
      name: decision.name,
      version: parts.decisions.versionOf(decision.id, deployment.digest),
      ...(decision.versionTag === undefined ? {} : { versionTag: decision.versionTag }),
    })),
    warnings: definitions.warnings.map((warning) => ({
      elementId: warning.elementId ?? null,
      message: warning.message,
    })),
  };
}
