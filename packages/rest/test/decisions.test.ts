import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { DISH_DMN, resources } from './models.js';

let api: Api;
let decisionKey: string;
beforeEach(async () => {
  api = await serveApi();
  const response = await fetch(`${api.server.url}/deployments`, {
    method: 'POST',
    body: resources({ 'dish.dmn': DISH_DMN }),
  });
  const body = (await response.json()) as { deployments: { decisionDefinition?: { decisionDefinitionKey: string } }[] };
  decisionKey = body.deployments.find((entry) => entry.decisionDefinition)!.decisionDefinition!.decisionDefinitionKey;
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

describe('POST /decision-definitions/evaluation', () => {
  it('should evaluate the latest version by decision id, with what it evaluated and matched', async () => {
    const response = await api.call('POST', '/decision-definitions/evaluation', {
      decisionDefinitionId: 'dish',
      variables: { season: 'Winter' },
    });

    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      decisionDefinitionId: 'dish',
      decisionDefinitionName: 'Dish',
      decisionDefinitionVersion: 1,
      decisionDefinitionKey: decisionKey,
      decisionRequirementsId: 'dish-drd',
      output: '"Stew"',
      failureMessage: '',
      tenantId: '<default>',
    });
    expect(body.evaluatedDecisions).toEqual([
      expect.objectContaining({
        decisionDefinitionId: 'dish',
        decisionDefinitionType: 'DECISION_TABLE',
        decisionDefinitionKey: decisionKey,
        decisionEvaluationInstanceKey: `${body.decisionEvaluationKey}-1`,
        evaluatedInputs: [{ inputId: 'in', inputName: 'Season', inputValue: '"Winter"' }],
        matchedRules: [
          {
            ruleId: 'r1',
            ruleIndex: 1,
            evaluatedOutputs: [{ outputId: 'out', outputName: 'dish', outputValue: '"Stew"' }],
          },
        ],
      }),
    ]);
  });

  it('should evaluate by decision definition key', async () => {
    const response = await api.call('POST', '/decision-definitions/evaluation', {
      decisionDefinitionKey: decisionKey,
      variables: { season: 'Summer' },
    });

    expect(await response.json()).toMatchObject({ decisionDefinitionId: 'dish', output: 'null' });
  });

  it('should answer 404 for a decision never deployed, 400 for a bad body', async () => {
    const missing = await api.call('POST', '/decision-definitions/evaluation', { decisionDefinitionId: 'nope' });
    expect(await problemOf(missing)).toMatchObject({ status: 404 });
    const unknownKey = await api.call('POST', '/decision-definitions/evaluation', { decisionDefinitionKey: '77' });
    expect(await problemOf(unknownKey)).toMatchObject({ status: 404 });
    const both = await api.call('POST', '/decision-definitions/evaluation', {
      decisionDefinitionId: 'dish',
      decisionDefinitionKey: decisionKey,
    });
    expect((await problemOf(both)).detail).toContain('not both');
  });
});
