/** The bodies of the job operations, written to the 8.8 spec's `Job…Request` schemas. */
import { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from './read.js';

const variables = z.record(z.string(), z.unknown()).nullish();
const operationReference = z.union([z.int(), z.string()]).optional();

/** `POST /jobs/activation`. */
const Activation = z.strictObject({
  type: z.string().min(1),
  worker: z.string().nullish(),
  timeout: z.int().min(1),
  maxJobsToActivate: z
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  fetchVariable: z.array(z.string()).nullish(),
  requestTimeout: z.int().nullish(),
  tenantIds: z.array(z.string()).nullish(),
});

export type JobActivationRequest = z.output<typeof Activation>;

export function readActivation(body: unknown): JobActivationRequest {
  return readAs(Activation, body, 'the job activation');
}

const Corrections = z.strictObject({
  assignee: z.string().nullish(),
  dueDate: z.string().nullish(),
  followUpDate: z.string().nullish(),
  candidateUsers: z.array(z.string()).nullish(),
  candidateGroups: z.array(z.string()).nullish(),
  priority: z.int().min(0).max(100).nullish(),
});

/** A task listener's result (`JobResultUserTask`), or the ad-hoc sub-process kind, which is refused by name. */
const Result = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('userTask'),
    denied: z.boolean().nullish(),
    deniedReason: z.string().nullish(),
    corrections: Corrections.nullish(),
  }),
  z.object({ type: z.literal('adHocSubProcess') }),
]);

/** `POST /jobs/{jobKey}/completion`. */
const Completion = z.strictObject({ variables, result: Result.nullish() });

export type JobCompletionRequest = z.output<typeof Completion>;

export function readCompletion(body: unknown): JobCompletionRequest {
  const completion = readAs(Completion, body ?? {}, 'the job completion');
  if (completion.result?.type === 'adHocSubProcess') {
    throw new Problem(
      ProblemKind.InvalidArgument,
      '$.result.type: an adHocSubProcess result belongs to job-worker ad-hoc sub-processes, which Thresher does not serve',
    );
  }
  return completion;
}

/** `POST /jobs/{jobKey}/failure`. */
const Failure = z.strictObject({
  retries: z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .nullish(),
  errorMessage: z.string().nullish(),
  retryBackOff: z.int().min(0).nullish(),
  variables,
});

export function readFailure(body: unknown): z.output<typeof Failure> {
  return readAs(Failure, body ?? {}, 'the job failure');
}

/** `POST /jobs/{jobKey}/error`. */
const ErrorThrow = z.strictObject({ errorCode: z.string().min(1), errorMessage: z.string().nullish(), variables });

export function readErrorThrow(body: unknown): z.output<typeof ErrorThrow> {
  return readAs(ErrorThrow, body, 'the job error');
}

/** `PATCH /jobs/{jobKey}`. */
const Update = z.strictObject({
  changeset: z.strictObject({
    retries: z
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .nullish(),
    timeout: z.int().min(1).nullish(),
  }),
  operationReference,
});

export function readUpdate(body: unknown): z.output<typeof Update>['changeset'] {
  const update = readAs(Update, body, 'the job update');
  if (update.operationReference !== undefined) {
    throw new Problem(ProblemKind.InvalidArgument, '$.operationReference: not served by Thresher yet');
  }
  return update.changeset;
}
