/** The decisions a DMN deployment holds, in file order: what their keys number (`keys.ts`). */
import { type Deployment, readDmn } from '@thresher/engine';

/** Parsed once per digest: a deployment never changes. */
const decisionIdsByDigest = new Map<string, string[]>();

export function decisionIdsOf(deployment: Deployment): string[] {
  let ids = decisionIdsByDigest.get(deployment.digest);
  if (ids === undefined) {
    ids = [...readDmn(deployment.xml).decisions.keys()];
    decisionIdsByDigest.set(deployment.digest, ids);
  }
  return ids;
}
