import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { DISH_DMN, ORDER_BPMN, resources } from './models.js';

let api: Api;
beforeEach(async () => {
  api = await serveApi();
});
afterEach(async () => {
  await api.close();
});

const deploy = (form: FormData) => fetch(`${api.server.url}/deployments`, { method: 'POST', body: form });

interface Deployed {
  deploymentKey: string;
  tenantId: string;
  deployments: Record<string, Record<string, unknown>>[];
}

describe('POST /deployments', () => {
  it('should deploy BPMN and DMN together, listing each process and decision with its key and version', async () => {
    // when a BPMN file and a DMN file are deployed
    const response = await deploy(resources({ 'order.bpmn': ORDER_BPMN(), 'dish.dmn': DISH_DMN }));

    // then both are listed, keyed, at version 1
    expect(response.status).toBe(200);
    const body = (await response.json()) as Deployed;
    expect(body.tenantId).toBe('<default>');
    expect(body.deploymentKey).toMatch(/^\d+$/);
    expect(body.deployments).toEqual([
      {
        processDefinition: {
          processDefinitionId: 'order',
          processDefinitionVersion: 1,
          resourceName: 'order.bpmn',
          tenantId: '<default>',
          processDefinitionKey: expect.stringMatching(/^\d+$/),
        },
      },
      {
        decisionRequirements: expect.objectContaining({ decisionRequirementsId: 'dish-drd', version: 1 }),
      },
      {
        decisionDefinition: expect.objectContaining({ decisionDefinitionId: 'dish', version: 1, name: 'Dish' }),
      },
    ]);
    // and the engine has them
    expect((await api.engine.deployments()).map(({ definitionId }) => definitionId).sort()).toContain('defs-order');
  });

  it("should number a BPMN id's versions as Camunda does, across files, and keep the key of one deployed again", async () => {
    // given the process deployed, then changed in another file with the same BPMN id
    const first = (await (await deploy(resources({ 'a.bpmn': ORDER_BPMN('order', 'One') }))).json()) as Deployed;
    const changed = ORDER_BPMN('order', 'Two').replace('defs-order', 'other-file');
    const second = (await (await deploy(resources({ 'b.bpmn': changed }))).json()) as Deployed;

    // when the first is deployed again
    const again = (await (await deploy(resources({ 'a.bpmn': ORDER_BPMN('order', 'One') }))).json()) as Deployed;

    // then the versions count per BPMN id, and the same model keeps its key and version
    const definition = (body: Deployed) => body.deployments[0]!.processDefinition!;
    expect(definition(first).processDefinitionVersion).toBe(1);
    expect(definition(second).processDefinitionVersion).toBe(2);
    expect(definition(again)).toEqual({ ...definition(first), resourceName: 'a.bpmn' });
    expect(definition(second).processDefinitionKey).not.toBe(definition(first).processDefinitionKey);
  });

  it('should refuse a model Thresher refuses with a 400 naming the resource, the element and the reason, deploying nothing', async () => {
    // given a model whose flow leads nowhere, beside a good one
    const broken = ORDER_BPMN('broken').replace('targetRef="e"', 'targetRef="missing"');

    // when they are deployed together
    const response = await deploy(resources({ 'good.bpmn': ORDER_BPMN(), 'broken.bpmn': broken }));

    // then it is refused, naming the file and the element, and neither is deployed
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.title).toBe('INVALID_ARGUMENT');
    expect(problem.detail).toMatch(/^resource "broken\.bpmn": .*f2/);
    expect(await api.engine.deployments()).toEqual([]);
  });

  it('should deploy a Camunda form with the models, listing it as Camunda does', async () => {
    const form = JSON.stringify({ id: 'review-form', components: [{ type: 'textfield', key: 'note' }] });

    const response = await deploy(resources({ 'order.bpmn': ORDER_BPMN(), 'review.form': form }));

    expect(response.status).toBe(200);
    const body = (await response.json()) as { deployments: Record<string, unknown>[] };
    expect(body.deployments).toContainEqual({
      form: {
        formId: 'review-form',
        version: 1,
        resourceName: 'review.form',
        tenantId: '<default>',
        formKey: expect.stringMatching(/^\d+$/),
      },
    });
  });

  it('should refuse a broken form, another tenant and a body without resources by name, deploying nothing', async () => {
    const cases: [FormData, RegExp][] = [
      [
        resources({ 'order.bpmn': ORDER_BPMN(), 'review.form': '{"id":"review"}' }),
        /resource "review\.form": .*no "components" list/,
      ],
      [resources({ 'order.form': ORDER_BPMN() }), /resource "order\.form": not a BPMN or DMN model/],
      [resources({ 'order.bpmn': ORDER_BPMN() }, { tenantId: 'red' }), /\$\.tenantId: tenant "red" is not served/],
      [resources({}, { tenantId: '<default>' }), /\$\.resources: no resource was sent/],
      [resources({ 'notes.txt': 'hello' }), /resource "notes\.txt": not a BPMN or DMN model/],
    ];
    for (const [form, detail] of cases) {
      const response = await deploy(form);
      expect(response.status).toBe(400);
      expect((await problemOf(response)).detail).toMatch(detail);
    }
    expect(await api.engine.deployments()).toEqual([]);
  });

  it('should refuse a JSON body with a 415', async () => {
    const response = await api.call('POST', '/deployments', { resources: [] });
    expect(response.status).toBe(415);
  });
});
