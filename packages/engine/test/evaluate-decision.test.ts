import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/common/errors.js';
import { Engine } from '../src/index.js';

const DISH = (output: string, more = '') => `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="dish-drd" name="Dishes" namespace="t">
  <decision id="dish" name="Dish">
    <decisionTable id="table">
      <input id="in" label="Season"><inputExpression id="ie" typeRef="string"><text>season</text></inputExpression></input>
      <output id="out" name="dish" typeRef="string" />
      <rule id="r1"><inputEntry id="e1"><text>"Winter"</text></inputEntry><outputEntry id="o1"><text>${output}</text></outputEntry></rule>${more}
    </decisionTable>
  </decision>
</definitions>`;

describe('engine.evaluateDecision', () => {
  it('should evaluate the latest version, or the version a deployment holds, with what it matched', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    const first = await engine.deploy(DISH('"Stew"'));
    await engine.deploy(DISH('"Soup"'));

    const latest = await engine.evaluateDecision('dish', { variables: { season: 'Winter' } });
    const pinned = await engine.evaluateDecision('dish', { variables: { season: 'Winter' }, digest: first.digest });

    expect(latest).toMatchObject({ decisionId: 'dish', decisionName: 'Dish', version: 2, result: 'Soup' });
    expect(pinned).toMatchObject({ version: 1, result: 'Stew', definitionId: 'dish-drd', digest: first.digest });
    expect(pinned.evaluated).toEqual([
      expect.objectContaining({
        decisionId: 'dish',
        decisionType: 'decisionTable',
        inputs: [{ id: 'in', name: 'Season', value: 'Winter' }],
        matchedRules: [{ ruleId: 'r1', ruleIndex: 1, outputs: [{ id: 'out', name: 'dish', value: 'Stew' }] }],
      }),
    ]);
    await engine.close();
  });

  it('should refuse a decision no deployment holds, and report a failing evaluation in the outcome', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    // Two rules match under the UNIQUE hit policy: no result, a failure.
    await engine.deploy(
      DISH(
        '"Stew"',
        '<rule id="r2"><inputEntry id="e2"><text>-</text></inputEntry><outputEntry id="o2"><text>"Any"</text></outputEntry></rule>',
      ),
    );

    await expect(engine.evaluateDecision('nope')).rejects.toBeInstanceOf(NotFoundError);
    const failed = await engine.evaluateDecision('dish', { variables: { season: 'Winter' } });

    expect(failed.result).toBeUndefined();
    expect(failed.failure).toMatch(/^Expected to evaluate decision 'dish', but/);
    await engine.close();
  });
});
