/**
 * The actions a page's forms post: each checked for its page's token and origin, then done through the
 * engine's API as any caller would (an instance not in memory is restored, and claimed, to act on it).
 *
 * @module
 */
import type { Engine, Variables } from '@thresher/engine';
import { UiError, UiErrorCode } from './errors.js';

/** A posted form: each field's values in order. */
export type Fields = Map<string, string[]>;

export function readFields(body: string): Fields {
  const fields: Fields = new Map();
  for (const [name, value] of new URLSearchParams(body)) fields.set(name, [...(fields.get(name) ?? []), value]);
  return fields;
}

function field(fields: Fields, name: string): string {
  const value = fields.get(name)?.[0];
  if (value === undefined) throw new UiError(UiErrorCode.BadRequest, `the form has no "${name}" field`);
  return value;
}

function variables(fields: Fields): Variables {
  const text = fields.get('variables')?.[0]?.trim() || '{}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UiError(
      UiErrorCode.BadRequest,
      `variables are not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UiError(UiErrorCode.BadRequest, 'variables must be a JSON object of names to values');
  }
  return parsed as Variables;
}

/** An id of the instance's (`<instanceId>/<localId>`): a form may only act on the instance its token is for. */
function ownId(instanceId: string, id: string, what: string): string {
  if (!id.startsWith(`${instanceId}/`)) {
    throw new UiError(UiErrorCode.BadRequest, `${what} ${id} is not of instance ${instanceId}`);
  }
  return id;
}

/** What each action does, given the instance its form was on; resolves to a line saying what was done. */
export const ACTIONS: Record<string, (engine: Engine, instanceId: string, fields: Fields) => Promise<string>> = {
  async retry(engine, instanceId, fields) {
    const incident = ownId(instanceId, field(fields, 'incident'), 'incident');
    await engine.retryIncident(incident);
    return `incident ${incident} retried`;
  },
  async complete(engine, instanceId, fields) {
    const task = ownId(instanceId, field(fields, 'task'), 'user task');
    await engine.completeUserTask(task, variables(fields));
    return `user task ${task} completed`;
  },
  async assign(engine, instanceId, fields) {
    const task = ownId(instanceId, field(fields, 'task'), 'user task');
    const assignee = field(fields, 'assignee').trim();
    await engine.assignUserTask(task, assignee === '' ? null : assignee);
    return assignee === '' ? `user task ${task} unassigned` : `user task ${task} assigned to ${assignee}`;
  },
  async 'set-variable'(engine, instanceId, fields) {
    const scope = field(fields, 'scope');
    const name = field(fields, 'name').trim();
    if (name === '') throw new UiError(UiErrorCode.BadRequest, 'a variable needs a name');
    const text = field(fields, 'value');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UiError(
        UiErrorCode.BadRequest,
        `the value of ${name} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    await engine.setVariables(instanceId, { [name]: value }, { scope });
    return `variable ${name} set in scope ${scope}`;
  },
  async correlate(engine, _instanceId, fields) {
    const name = field(fields, 'name');
    const correlationKey = fields.get('correlationKey')?.[0];
    const result = await engine.correlateMessage(name, {
      ...(correlationKey === undefined ? {} : { correlationKey }),
      variables: variables(fields),
    });
    if (result.correlated) return `message ${name} correlated to instance ${result.instanceId}`;
    return result.buffered ? `message ${name} buffered` : `message ${name} reached no instance waiting for it`;
  },
  async signal(engine, _instanceId, fields) {
    const name = field(fields, 'name');
    const reached = await engine.broadcastSignal(name, { variables: variables(fields) });
    return `signal ${name} broadcast to ${reached.length} instance(s)`;
  },
  async activate(engine, instanceId, fields) {
    const adHoc = ownId(instanceId, field(fields, 'adHoc'), 'ad-hoc sub-process');
    const elements = (fields.get('element') ?? []).map((id) => ({ elementId: id }));
    if (elements.length === 0) throw new UiError(UiErrorCode.BadRequest, 'choose at least one element to activate');
    await engine.activateAdHocElements(adHoc, elements);
    return `${elements.length} element(s) of ${adHoc} activated`;
  },
  async modify(engine, instanceId, fields) {
    const from = fields.get('terminate')?.[0] ?? '';
    const to = fields.get('activate')?.[0] ?? '';
    if (from === '' && to === '')
      throw new UiError(
        UiErrorCode.BadRequest,
        'choose an element instance to move or cancel, or an element to add a token to',
      );
    await engine.modifyInstance(instanceId, {
      terminate: from === '' ? [] : [from],
      activate: to === '' ? [] : [{ elementId: to }],
    });
    if (from === '') return `a token added at ${to}`;
    return to === '' ? `element instance ${from} cancelled` : `token moved from ${from} to ${to}`;
  },
  async cancel(engine, instanceId) {
    await engine.cancel(instanceId);
    return `instance ${instanceId} cancelled`;
  },
};
