/**
 * A user task's choices (issue 17): from its Camunda Form (embedded or linked), else from the exclusive
 * gateway right after it when its conditions are simple, else none; and the form as the compiler reads it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ModelError, NotFoundError } from '../src/common/errors.js';
import { compile, type ProcessDef, type ProcessModel, type UserTaskNode } from '../src/model/index.js';
import { userTaskChoices } from '../src/touchpoints/choices.js';
import { around, bpmn, ext, flow } from './fixtures/bpmn/xml.js';

const choicesModel = () =>
  compile(readFileSync(new URL('./fixtures/touchpoints/choices.bpmn', import.meta.url), 'utf8'));
const only = (model: ProcessModel) => [...model.processes.values()][0] as ProcessDef;

/** `start → task → gateway`, the gateway's flows (id, condition or undefined, name) each to an end event. */
async function beforeGateway(
  flows: readonly [id: string, condition?: string, name?: string][],
  defaultFlow?: string,
): Promise<ProcessDef> {
  const ends = flows.map(([id]) => `<bpmn:endEvent id="end_${id}" name="End ${id}" />`).join('');
  const out = flows
    .map(([id, condition, name]) =>
      flow(id, 'g', `end_${id}`, condition).replace(`id="${id}"`, name ? `id="${id}" name="${name}"` : `id="${id}"`),
    )
    .join('');
  const xml = bpmn(
    `<bpmn:startEvent id="start" /><bpmn:userTask id="task" />
    <bpmn:exclusiveGateway id="g"${defaultFlow ? ` default="${defaultFlow}"` : ''} />${ends}
    ${flow('in', 'start', 'task')}${flow('to_g', 'task', 'g')}${out}`,
  );
  return only(await compile(xml));
}

describe('userTaskChoices: source form', () => {
  it('an embedded form offers the values of its first choice field, depth first through groups', async () => {
    expect(userTaskChoices(only(await choicesModel()), 'size')).toEqual({
      source: 'form',
      options: [
        { id: 's', label: 'Small', variables: { size: 's' } },
        { id: 'l', label: 'Large', variables: { size: 'l' } },
      ],
    });
  });

  it('a linked form is looked up by its form id, as JSON text or parsed', async () => {
    const process = only(await choicesModel());
    const form = { components: [{ type: 'select', key: 'paper', values: [{ label: 'Gold', value: 1 }] }] };
    const expected = { source: 'form', options: [{ id: '1', label: 'Gold', variables: { paper: 1 } }] };
    expect(userTaskChoices(process, 'wrap', new Map([['wrapping', form]]))).toEqual(expected);
    expect(userTaskChoices(process, 'wrap', new Map([['wrapping', JSON.stringify(form)]]))).toEqual(expected);
  });

  it('a linked form that was not given falls through to the next source', async () => {
    expect(userTaskChoices(only(await choicesModel()), 'wrap')).toEqual({ source: 'variables', options: [] });
  });

  it('UserTask#form: the embedded form’s JSON, or the linked form’s id, only when there is one', async () => {
    const process = only(await choicesModel());
    const form = (id: string) => (process.nodes.get(id) as UserTaskNode).form;
    expect(form('size')).toMatchObject({ kind: 'embedded', json: expect.stringContaining('"key": "size"') });
    expect(form('wrap')).toEqual({ kind: 'linked', formId: 'wrapping' });
    expect(process.nodes.get('approve')).not.toHaveProperty('form');
  });

  it('an embedded form that is not JSON is refused, naming the user task', async () => {
    const xml = bpmn(
      `${ext('<zeebe:userTaskForm id="f">{ not json</zeebe:userTaskForm>')}<bpmn:startEvent id="start" />
      <bpmn:userTask id="x">${ext('<zeebe:formDefinition formKey="camunda-forms:bpmn:f" />')}</bpmn:userTask>${flow('f1', 'start', 'x')}`,
    );
    const error = await compile(xml).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).issues).toEqual([
      expect.objectContaining({
        elementId: 'x',
        message: expect.stringMatching(/embedded zeebe:userTaskForm "f" .* is not valid JSON/),
      }),
    ]);
  });

  it('a form key naming no embedded form compiles with a warning, and no form', async () => {
    const model = await compile(
      around(
        `<bpmn:userTask id="x">${ext('<zeebe:formDefinition formKey="camunda-forms:bpmn:gone" />')}</bpmn:userTask>`,
      ),
    );
    expect(model.warnings).toContainEqual({
      elementId: 'x',
      message: expect.stringMatching(/names no zeebe:userTaskForm/),
    });
    expect(only(model).nodes.get('x')).not.toHaveProperty('form');
  });
});

describe('userTaskChoices: source gateway', () => {
  it('offers each flow of the exclusive gateway after the task, with variables that make its condition true', async () => {
    expect(userTaskChoices(only(await choicesModel()), 'approve')).toEqual({
      source: 'gateway',
      options: [
        { id: 'yes', label: 'Approve', variables: { ok: true } },
        { id: 'no', label: 'Amend the order', variables: { ok: false } },
      ],
    });
  });

  it('reads v = literal for strings, numbers, booleans and null; labels by flow, then target, names', async () => {
    const process = await beforeGateway([
      ['gold', '=tier = "gold"', 'Gold'],
      ['two', '=tier = 2'],
      ['yes', '= flag = true'],
      ['none', '=tier = null'],
    ]);
    expect(userTaskChoices(process, 'task').options).toEqual([
      { id: 'gold', label: 'Gold', variables: { tier: 'gold' } },
      { id: 'two', label: 'End two', variables: { tier: 2 } },
      { id: 'yes', label: 'End yes', variables: { flag: true } },
      { id: 'none', label: 'End none', variables: { tier: null } },
    ]);
  });

  it('offers the default flow with variables that make every condition false', async () => {
    const process = await beforeGateway(
      [['gold', '=tier = "gold"'], ['silver', '=tier = "silver"'], ['other']],
      'other',
    );
    expect(userTaskChoices(process, 'task').options).toContainEqual({
      id: 'other',
      label: 'End other',
      variables: { tier: null },
    });
  });

  it('makes a condition comparing with null false with a string no condition names', async () => {
    const process = await beforeGateway([['none', '=tier = null'], ['empty', '=tier = ""'], ['other']], 'other');
    expect(userTaskChoices(process, 'task').options.at(-1)).toEqual({
      id: 'other',
      label: 'End other',
      variables: { tier: '_' },
    });
  });

  it.each([
    ['a comparison other than =', '=amount > 100'],
    ['a conjunction', '=a and b'],
    ['a function call', '=contains(tags, "x")'],
    ['a path', '=order.ok'],
  ])('offers no gateway options when a condition is %s', async (_, condition) => {
    const process = await beforeGateway([
      ['one', '=ok'],
      ['two', condition],
    ]);
    expect(userTaskChoices(process, 'task')).toEqual({ source: 'variables', options: [] });
  });

  it('offers nothing when the task does not lead straight to an exclusive gateway', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:userTask id="task" /><bpmn:task id="between" /><bpmn:exclusiveGateway id="g" default="b" />
      <bpmn:endEvent id="ea" /><bpmn:endEvent id="eb" />
      ${flow('f1', 'start', 'task')}${flow('f2', 'task', 'between')}${flow('f3', 'between', 'g')}${flow('a', 'g', 'ea', '=ok')}${flow('b', 'g', 'eb')}`,
    );
    expect(userTaskChoices(only(await compile(xml)), 'task')).toEqual({ source: 'variables', options: [] });
  });
});

describe('userTaskChoices: errors', () => {
  it('throws NotFoundError for an element that is not a user task of the process', async () => {
    const process = only(await choicesModel());
    expect(() => userTaskChoices(process, 'start')).toThrow(NotFoundError);
    expect(() => userTaskChoices(process, 'missing')).toThrow(/no userTask "missing"/);
  });
});
