/**
 * Camunda forms deployed with models (`.form`: JSON with an `id` and its `components`), as Zeebe deploys them: stored
 * as deployments under the form id with the `form:` prefix (the same file twice is one deployment, a changed one
 * the next version of that id), for user tasks that link them (`zeebe:formDefinition formId`).
 */
import { createHash } from 'node:crypto';
import type { Deployment } from '@thresher/checkpoint';
import { ModelError } from '../../common/errors.js';

/** The prefix of a form deployment's definition id, which no BPMN or DMN definitions id can carry. */
export const FORM_DEFINITION = 'form:';

/** What a deployed form is known by. */
export interface FormFile {
  id: string;
  digest: string;
}

/** Whether a file is a Camunda form: JSON text (models are XML, which never opens with `{`). */
export function isForm(text: string): boolean {
  return text.trimStart().startsWith('{');
}

/** Read a form file: its id and digest, or a `ModelError` saying what is wrong with it. */
export function readForm(text: string): FormFile {
  let form: unknown;
  try {
    form = JSON.parse(text);
  } catch (error) {
    throw formError(`it is not JSON: ${(error as Error).message}`);
  }
  if (typeof form !== 'object' || form === null || Array.isArray(form)) throw formError('it is not a JSON object');
  const { id, components } = form as Record<string, unknown>;
  if (typeof id !== 'string' || id === '') throw formError('it has no "id" (a string that is not empty)');
  if (!Array.isArray(components)) throw formError(`form "${id}" has no "components" list`);
  return { id, digest: createHash('sha256').update(text).digest('hex') };
}

function formError(message: string): ModelError {
  return new ModelError([{ elementId: null, elementType: 'form', message: `a Camunda form file, but ${message}` }]);
}

export function isFormDeployment(deployment: Deployment): boolean {
  return deployment.definitionId.startsWith(FORM_DEFINITION) && isForm(deployment.xml);
}
