/** The bodies of the user task operations, written to the 8.8 spec's `UserTask…Request` schemas. */
import { z } from 'zod';
import { readAs } from './read.js';

const action = z.string().nullish();

const Assignment = z.strictObject({ assignee: z.string().min(1), allowOverride: z.boolean().nullish(), action });

export function readAssignment(body: unknown): z.output<typeof Assignment> {
  return readAs(Assignment, body, 'the user task assignment');
}

const Unassignment = z.strictObject({});

export function readUnassignment(body: unknown): void {
  readAs(Unassignment, body ?? {}, 'the user task unassignment');
}

const Completion = z.strictObject({ variables: z.record(z.string(), z.unknown()).nullish(), action });

export function readTaskCompletion(body: unknown): z.output<typeof Completion> {
  return readAs(Completion, body ?? {}, 'the user task completion');
}

const Update = z.strictObject({
  changeset: z
    .strictObject({
      dueDate: z.string().nullish(),
      followUpDate: z.string().nullish(),
      candidateUsers: z.array(z.string()).nullish(),
      candidateGroups: z.array(z.string()).nullish(),
      priority: z.int().min(0).max(100).nullish(),
    })
    .nullish(),
  action,
});

export function readTaskUpdate(body: unknown): z.output<typeof Update> {
  return readAs(Update, body ?? {}, 'the user task update');
}
