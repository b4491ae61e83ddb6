/**
 * A user task's fields as callers see them, shared by the runtime's views and the touchpoint questions.
 *
 * @module
 */
import type { UserTaskEvent } from '@thresher/checkpoint';

/** A user task's fields that can be assigned, updated or corrected, as callers see them (cleared: null or []). */
export interface UserTaskFieldsView {
  assignee: string | null;
  /** The groups and users who may take the task (`zeebe:assignmentDefinition`), `[]` when none. */
  candidateGroups: string[];
  candidateUsers: string[];
  /** `zeebe:taskSchedule` dates (ISO 8601), as updated or corrected since; null when none. */
  dueDate: string | null;
  followUpDate: string | null;
  /** 0–100; 50 when the model gives none. */
  priority: number;
}

/** The last transition a task listener denied (until the next one begins), and why. */
export interface UserTaskDenial {
  event: UserTaskEvent;
  reason: string | null;
}
