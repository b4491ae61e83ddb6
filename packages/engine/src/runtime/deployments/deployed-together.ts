/**
 * Files deployed together (`engine.deployTogether`), as Zeebe deploys several resources in one deployment:
 * each file is a deployment of its own (versioned as always), and one more record — its definitions id
 * prefixed `deployment:`, its text a manifest of the files' digests — says they belong together. What a
 * process's `bindingType="deployment"` calls is taken from the files deployed with it. The repository
 * needs nothing new: the manifest is a deployment no process or decision is read from.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { Deployment, DeploymentInput } from '@thresher/checkpoint';

/** The prefix of a manifest's definitions id, which no BPMN or DMN definitions id (an XML id) can carry. */
export const TOGETHER_DEFINITION = 'deployment:';

const ROOT = 'thresher-deployment';

/** The manifest record of files deployed together (their digests, in the order given). */
export function manifestOf(digests: readonly string[], deployedAt: number): DeploymentInput {
  const unique = [...new Set(digests)];
  const xml = `<${ROOT}>${unique.map((digest) => `<file digest="${digest}"/>`).join('')}</${ROOT}>`;
  const id = createHash('sha256')
    .update([...unique].sort().join('\n'))
    .digest('hex');
  return {
    definitionId: `${TOGETHER_DEFINITION}${id.slice(0, 32)}`,
    digest: createHash('sha256').update(xml).digest('hex'),
    xml,
    deployedAt,
  };
}

/** Whether a stored deployment is a manifest of files deployed together. */
export function isManifest(deployment: Deployment): boolean {
  return deployment.definitionId.startsWith(TOGETHER_DEFINITION) && deployment.xml.startsWith(`<${ROOT}>`);
}

/** The digests a manifest lists. */
export function digestsOf(manifest: Deployment): string[] {
  return [...manifest.xml.matchAll(/<file digest="([0-9a-f]+)"\/>/g)].map((match) => match[1]!);
}

/**
 * For each file's digest, the digests deployed with it (itself included): the latest manifest that lists it
 * wins, as the latest deployment of an unchanged file is the one Zeebe's `deployment` binding reads.
 */
export class Together {
  private readonly withDigest = new Map<string, ReadonlySet<string>>();

  add(manifest: Deployment): void {
    const digests = new Set(digestsOf(manifest));
    for (const digest of digests) this.withDigest.set(digest, digests);
  }

  /** The digests deployed together with `digest` (just itself when it was deployed alone). */
  of(digest: string): ReadonlySet<string> {
    return this.withDigest.get(digest) ?? new Set([digest]);
  }
}
