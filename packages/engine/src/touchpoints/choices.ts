/**
 * The options a user task puts to an operator: its Camunda Form's first choice field, else the conditions
 * of the exclusive gateway right after it, else none (the operator gives variables as JSON).
 *
 * @module
 */
import type { Variables } from '@thresher/checkpoint';
import { NotFoundError } from '../common/errors.js';
import type { UserTaskNode } from '../model/node-types.js';
import type { Flow, ProcessDef } from '../model/process-types.js';
import { NodeType } from '../model/types.js';
import type { ChoiceOption, ChoiceSource } from './types.js';

/** A user task's options and where they come from. */
export interface UserTaskChoices {
  source: ChoiceSource;
  options: ChoiceOption[];
}

/**
 * What completing the user task `elementId` can choose between.
 *
 * @param forms linked forms (`zeebe:formDefinition formId`) by form id: the form's JSON, parsed or as text.
 * @throws NotFoundError when the process has no user task `elementId`.
 * @example
 * ```ts
 * userTaskChoices(process, 'approve').options; // [{ id: 'f-yes', label: 'Yes', variables: { approved: true } }, …]
 * ```
 */
export function userTaskChoices(
  process: ProcessDef,
  elementId: string,
  forms?: ReadonlyMap<string, unknown>,
): UserTaskChoices {
  const task = process.nodes.get(elementId);
  if (task?.type !== NodeType.UserTask) throw new NotFoundError('userTask', elementId);
  const fromForm = formOptions(task, forms);
  if (fromForm.length > 0) return { source: 'form', options: fromForm };
  const fromGateway = gatewayOptions(process, task);
  if (fromGateway.length > 0) return { source: 'gateway', options: fromGateway };
  return { source: 'variables', options: [] };
}

// ── forms ─────────────────────────────────────────────────────────────────────────────────────────────

/** Fields whose value is a list: one option of theirs is not an answer. */
const MULTI_VALUED: ReadonlySet<unknown> = new Set(['checklist', 'taglist']);

function formOptions(task: UserTaskNode, forms: ReadonlyMap<string, unknown> | undefined): ChoiceOption[] {
  const form = task.form;
  if (!form) return [];
  const body = form.kind === 'embedded' ? form.json : forms?.get(form.formId);
  const schema = typeof body === 'string' ? parsed(body) : body;
  const field = firstChoiceField(schema);
  if (!field) return [];
  return field.values.map((item) => ({
    id: String(item.value),
    label: typeof item.label === 'string' ? item.label : String(item.value),
    variables: Object.fromEntries([[field.key, item.value]]) as Variables,
  }));
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // An embedded form was checked when the model compiled; a linked one the host gave: no options from it.
    return undefined;
  }
}

interface ChoiceField {
  key: string;
  values: { label?: unknown; value: unknown }[];
}

/** The first component, depth first through `components` (groups nest them), with a key and static values. */
function firstChoiceField(component: unknown): ChoiceField | undefined {
  if (typeof component !== 'object' || component === null) return undefined;
  const { key, values, type, components } = component as Record<string, unknown>;
  if (typeof key === 'string' && key !== '' && Array.isArray(values) && !MULTI_VALUED.has(type)) {
    const items = values.filter(
      (item): item is ChoiceField['values'][number] => typeof item === 'object' && item !== null && 'value' in item,
    );
    if (items.length > 0) return { key, values: items };
  }
  if (!Array.isArray(components)) return undefined;
  for (const child of components) {
    const found = firstChoiceField(child);
    if (found) return found;
  }
  return undefined;
}

// ── the gateway after the task ────────────────────────────────────────────────────────────────────────

type Literal = string | number | boolean | null;

/** A condition of a shape whose making-true variables can be written down: `v = literal`, `v`, `not(v)`. */
interface SimpleCondition {
  variable: string;
  /** The value that makes it true. */
  value: Literal;
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const EQUALS = new RegExp(`^(${NAME})\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?|true|false|null)$`);
const TRUTHY = new RegExp(`^(${NAME})$`);
const NEGATED = new RegExp(`^not\\s*\\(\\s*(${NAME})\\s*\\)$`);
const KEYWORDS: ReadonlySet<string> = new Set(['true', 'false', 'null', 'not']);

/**
 * One option per flow out of the exclusive gateway the task's only flow leads to, when every conditional
 * flow's condition is simple; the default flow too, with variables that make every condition false.
 */
function gatewayOptions(process: ProcessDef, task: UserTaskNode): ChoiceOption[] {
  if (task.outgoing.length !== 1) return [];
  const gateway = process.nodes.get(process.flows.get(task.outgoing[0] ?? '')?.target ?? '');
  if (gateway?.type !== NodeType.ExclusiveGateway) return [];
  const flows = gateway.outgoing.flatMap((id) => process.flows.get(id) ?? []);
  const conditions = new Map<Flow, SimpleCondition>();
  for (const flow of flows) {
    if (flow.id === gateway.defaultFlow) continue;
    const condition = flow.condition ? simpleCondition(flow.condition.source) : undefined;
    // An unconditional flow that is not the default, or a condition of another shape: no choice to offer.
    if (!condition) return [];
    conditions.set(flow, condition);
  }
  if (conditions.size === 0) return [];
  const otherwise = falsifying([...conditions.values()]);
  return flows.flatMap((flow): ChoiceOption[] => {
    const condition = conditions.get(flow);
    const variables = condition ? Object.fromEntries([[condition.variable, condition.value]]) : otherwise;
    const label =
      flow.name ?? process.nodes.get(flow.target)?.name ?? (flow.condition ? `=${flow.condition.source}` : flow.id);
    return [{ id: flow.id, label, variables: variables as Variables }];
  });
}

function simpleCondition(source: string): SimpleCondition | undefined {
  const text = source.trim();
  const equals = EQUALS.exec(text);
  if (equals?.[1] && equals[2] !== undefined && !KEYWORDS.has(equals[1])) {
    const value = literal(equals[2]);
    return value === undefined ? undefined : { variable: equals[1], value: value.of };
  }
  const truthy = TRUTHY.exec(text)?.[1];
  if (truthy && !KEYWORDS.has(truthy)) return { variable: truthy, value: true };
  const negated = NEGATED.exec(text)?.[1];
  if (negated && !KEYWORDS.has(negated)) return { variable: negated, value: false };
  return undefined;
}

/** A FEEL literal's value (boxed, so null is a value); undefined when JSON cannot read it as FEEL means it. */
function literal(text: string): { of: Literal } | undefined {
  try {
    return { of: JSON.parse(text) as Literal };
  } catch {
    return undefined;
  }
}

/**
 * Variables that make every condition false: null for each variable (`null = "x"` is false, and null is not
 * true), or, for a variable some condition compares with null, a string no condition compares it with (a
 * string is neither true nor false either). Conditions of these shapes can always be made false together.
 */
function falsifying(conditions: readonly SimpleCondition[]): Record<string, Literal> {
  const values = new Map<string, Literal>();
  for (const { variable } of conditions) {
    const compared = conditions.filter((condition) => condition.variable === variable).map((c) => c.value);
    let other = '';
    while (compared.includes(other)) other += '_';
    values.set(variable, compared.includes(null) ? other : null);
  }
  // fromEntries defines own properties, so a variable named `__proto__` stays a variable.
  return Object.fromEntries(values);
}
