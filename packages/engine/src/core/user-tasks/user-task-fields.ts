import type { TrackRecord, UserTaskFields, UserTaskRecord } from '@thresher/checkpoint';
import type { UserTaskNode } from '../../model/node-types.js';
import { isDateTime } from '../../model/user-task-schedule.js';
import { evaluateOrIncident, NO_VALUE, wrongValueIncident } from '../jobs/incidents.js';
import type { StepContext } from '../step/context.js';

/**
 * A user task's fields that can be assigned, updated or corrected (`UserTaskFields`): evaluated from the model
 * when the task is created, compared and set as a whole, and checked where a caller or a task listener gives
 * them. A cleared field is absent from the record (an assignee is null), so a plain task stays small.
 */

/** The fields a listener may correct, in Zeebe's order; `assignee` is not one an update may change. */
export const CORRECTABLE = [
  'assignee',
  'candidateGroups',
  'candidateUsers',
  'dueDate',
  'followUpDate',
  'priority',
] as const;
export type FieldName = (typeof CORRECTABLE)[number];

/** Zeebe's names of the fields, as its `changedAttributes` spells them. */
const ZEEBE_NAMES: Readonly<Record<FieldName, string>> = {
  assignee: 'assignee',
  candidateGroups: 'candidateGroupsList',
  candidateUsers: 'candidateUsersList',
  dueDate: 'dueDate',
  followUpDate: 'followUpDate',
  priority: 'priority',
};

/** A priority no model or caller gave: Zeebe's default. */
export const DEFAULT_PRIORITY = 50;

/** The task's fields, cleared ones left out. */
export function fieldsOf(task: UserTaskRecord): UserTaskFields {
  const fields: UserTaskFields = { assignee: task.assignee };
  for (const name of CORRECTABLE) {
    if (name !== 'assignee' && task[name] !== undefined)
      (fields as unknown as Record<string, unknown>)[name] = task[name];
  }
  return fields;
}

/** Set the task's fields to `fields` (absent ones cleared). */
export function setFields(task: UserTaskRecord, fields: UserTaskFields): void {
  task.assignee = fields.assignee;
  for (const name of CORRECTABLE) {
    if (name === 'assignee') continue;
    const value = fields[name];
    if (value === undefined) delete task[name];
    else (task as unknown as Record<string, unknown>)[name] = value;
  }
}

/** Zeebe's name of a field, as its `changedAttributes` header spells it. */
export function zeebeFieldName(name: string): string {
  return ZEEBE_NAMES[name as FieldName] ?? name;
}

/** The fields whose values differ between `before` and `after`, alphabetically. */
export function changedFields(before: UserTaskFields, after: UserTaskFields): string[] {
  return CORRECTABLE.filter(
    (name) => JSON.stringify(fieldValue(before, name)) !== JSON.stringify(fieldValue(after, name)),
  );
}

function fieldValue(fields: UserTaskFields, name: FieldName): unknown {
  if (name === 'priority') return fields.priority ?? DEFAULT_PRIORITY;
  if (name === 'candidateGroups' || name === 'candidateUsers') return fields[name] ?? [];
  return fields[name] ?? null;
}

/**
 * Apply `changes` (a caller's update, or a listener's corrections) over `fields`: `null` or `''` clears a
 * field (an empty list clears a list); a value that does not fit its field throws an `Error` naming it.
 */
export function changedBy(
  fields: UserTaskFields,
  changes: Record<string, unknown>,
  allowed: readonly FieldName[],
): UserTaskFields {
  const next: UserTaskFields = { ...fields };
  for (const [name, value] of Object.entries(changes)) {
    if (!allowed.includes(name as FieldName)) {
      throw new Error(`"${name}" is not a field that can be changed here; the fields are ${allowed.join(', ')}`);
    }
    const field = name as FieldName;
    const cleared = value === null || value === '' || (Array.isArray(value) && value.length === 0);
    if (field === 'assignee')
      next.assignee = cleared ? null : checked(field, value as string, typeof value === 'string', 'a string');
    else if (cleared) delete next[field];
    else if (field === 'candidateGroups' || field === 'candidateUsers') {
      const ok = Array.isArray(value) && value.every((item) => typeof item === 'string');
      next[field] = [...checked(field, value as string[], ok, 'a list of strings')];
    } else if (field === 'priority') {
      next.priority = checked(
        field,
        value as number,
        Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 100,
        'an integer from 0 to 100',
      );
    } else next[field] = checked(field, value as string, isDateTime(value), 'an ISO 8601 date-time with an offset');
  }
  return next;
}

function checked<T>(field: string, value: T, ok: boolean, rule: string): T {
  if (!ok) throw new Error(`${field} ${JSON.stringify(value)} is not ${rule} (null or "" clears it)`);
  return value;
}

/** How each field's model attribute is named, and what its value must be. */
const FROM_MODEL: readonly [FieldName, string, string, (value: unknown) => boolean][] = [
  [
    'assignee',
    'zeebe:assignmentDefinition assignee',
    'an assignee must be a string or null',
    (v) => v === null || typeof v === 'string',
  ],
  ['candidateGroups', 'zeebe:assignmentDefinition candidateGroups', 'it must be a list of strings', isStringList],
  ['candidateUsers', 'zeebe:assignmentDefinition candidateUsers', 'it must be a list of strings', isStringList],
  [
    'dueDate',
    'zeebe:taskSchedule dueDate',
    'it must be an ISO 8601 date-time with an offset, or null',
    (v) => v === null || isDateTime(v),
  ],
  [
    'followUpDate',
    'zeebe:taskSchedule followUpDate',
    'it must be an ISO 8601 date-time with an offset, or null',
    (v) => v === null || isDateTime(v),
  ],
  [
    'priority',
    'zeebe:priorityDefinition priority',
    'it must be an integer from 0 to 100',
    (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 100,
  ],
];

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The fields the model gives a new task, evaluated in the track's view; undefined when one failed or does
 * not fit (an incident naming the attribute was raised).
 */
export function initialFields(ctx: StepContext, track: TrackRecord, node: UserTaskNode): UserTaskFields | undefined {
  const fields: UserTaskFields = { assignee: null };
  for (const [field, what, rule, fits] of FROM_MODEL) {
    const expression = node[field];
    if (!expression) continue;
    const value = evaluateOrIncident(ctx, track, expression, 'enter');
    if (value === NO_VALUE) return undefined;
    if (!fits(value)) return wrongValueIncident(ctx, track, what, expression, value, rule);
    if (value !== null) (fields as unknown as Record<string, unknown>)[field] = value;
  }
  return fields;
}
