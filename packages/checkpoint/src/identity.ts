import type { ResultReceipt } from './body-records.js';
import { canonicalBytes } from './codec.js';
import { domainDigest } from './digest.js';
import type { Variables } from './types.js';

/** Domains keep step identities, result digests and inputs from ever colliding (seed 001). */
export const STEP_IDENTITY_DOMAIN = 'thresher/step-identity/v1';
export const STEP_INPUT_DOMAIN = 'thresher/step-input/v1';
export const STEP_RESULT_DOMAIN = 'thresher/step-result/v1';

/** What defines one invocation of a step. */
export interface StepIdentityInput {
  instanceId: string;
  definitionDigest: string;
  nodeId: string;
  scopePath: string;
  /** How many times the node was entered in its scope before (a loop makes a new invocation). */
  attempt: number;
  /** `digestInputs` of the variables the step was invoked with. */
  inputDigest: string;
  /**
   * An execution listener's job: its event and its index among that event's listeners (`start/0`), so it is
   * neither the element's own job nor another listener. Absent (not undefined) for the element's own job,
   * whose identity stays what it always was.
   */
  listener?: string;
}

/** The digest of a step's input variables. */
export function digestInputs(variables: Variables): string {
  return domainDigest(STEP_INPUT_DOMAIN, variables);
}

/** A step's identity: stable for the same invocation, different for any other. */
export function stepIdentity(input: StepIdentityInput): string {
  return domainDigest(STEP_IDENTITY_DOMAIN, input);
}

/** A receipt binding an identity to its result by digest and size; it carries no plaintext. */
export function resultReceipt(identity: string, result: Variables): ResultReceipt {
  const bytes = canonicalBytes(result, '$result');
  return { identity, resultDigest: domainDigest(STEP_RESULT_DOMAIN, result), resultBytes: bytes.byteLength };
}

/** Whether a receipt matches the result stored beside it. */
export function receiptMatches(receipt: ResultReceipt, result: Variables): boolean {
  const bytes = canonicalBytes(result, '$result');
  return receipt.resultBytes === bytes.byteLength && receipt.resultDigest === domainDigest(STEP_RESULT_DOMAIN, result);
}
