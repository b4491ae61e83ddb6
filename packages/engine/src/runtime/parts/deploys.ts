/**
 * Deploying models: a BPMN file compiled and stored (a DMN file and a Camunda form each their own way) (the same file twice is one deployment, a changed one the
 * next version; a file deleted before is live again), its timer starts scheduled; several files as one deployment, nothing stored unless every one
 * compiles.
 *
 * @module
 */
import { isDmn } from '@thresher/dmn';
import { ModelError } from '../../common/errors.js';
import { compileShared } from '../../model/shared-models.js';
import type { DeployResult } from '../base/types.js';
import { manifestOf } from '../deployments/deployed-together.js';
import { FORM_DEFINITION, isForm, readForm } from '../deployments/forms.js';
import { undelete } from './delete-deployment.js';
import { deployDmn, readDmn } from './deploy-dmn.js';
import type { EngineParts } from './engine-parts.js';
import { scheduleTimerStarts } from './timer-starts.js';

/** Compile and store one file, BPMN, DMN or a Camunda form. Throws `ModelError`. */
export async function deployFile(parts: EngineParts, xml: string): Promise<DeployResult> {
  if (isForm(xml) || isDmn(xml)) {
    const result = isForm(xml) ? await deployForm(parts, xml) : await deployDmn(parts, xml);
    await undelete(parts, result.digest);
    return result;
  }
  const model = await compileShared(xml);
  const deployment = await parts.repository.putDeployment({
    definitionId: model.definitionId,
    digest: model.digest,
    xml,
    deployedAt: parts.clock.now(),
  });
  parts.definitions.add(deployment, model);
  await undelete(parts, deployment.digest);
  await scheduleTimerStarts(parts.deliveries, deployment, model);
  return {
    kind: 'bpmn',
    definitionId: deployment.definitionId,
    version: deployment.version,
    digest: deployment.digest,
    processes: [...model.processes.values()].filter((p) => p.executable).map((p) => p.id),
    decisions: [],
    warnings: model.warnings.map((warning) => ({ ...warning })),
  };
}

/** Store a Camunda form under its id: the same file twice is one deployment, a changed one the next version. */
async function deployForm(parts: EngineParts, text: string): Promise<DeployResult> {
  const form = readForm(text);
  const deployment = await parts.repository.putDeployment({
    definitionId: `${FORM_DEFINITION}${form.id}`,
    digest: form.digest,
    xml: text,
    deployedAt: parts.clock.now(),
  });
  return {
    kind: 'form',
    definitionId: form.id,
    version: deployment.version,
    digest: deployment.digest,
    processes: [],
    decisions: [],
    warnings: [],
  };
}

/**
 * Deploy files as one deployment: every one compiled first (a `ModelError` names the file by `fileIndex`), then
 * each stored, DMN first, and the set recorded as a manifest so `bindingType="deployment"` finds its decisions.
 */
export async function deployFiles(parts: EngineParts, files: readonly string[]): Promise<DeployResult[]> {
  for (const [index, xml] of files.entries()) {
    try {
      if (isForm(xml)) readForm(xml);
      else if (isDmn(xml)) readDmn(xml);
      else await compileShared(xml);
    } catch (error) {
      if (error instanceof ModelError) error.fileIndex = index;
      throw error;
    }
  }
  const order = [...files.keys()].sort((a, b) => Number(!isDmn(files[a]!)) - Number(!isDmn(files[b]!)));
  const results: DeployResult[] = [];
  for (const index of order) results[index] = await deployFile(parts, files[index]!);
  if (files.length > 1) {
    const digests = results.map((result) => result.digest);
    parts.decisions.addManifest(await parts.repository.putDeployment(manifestOf(digests, parts.clock.now())));
  }
  return results;
}
