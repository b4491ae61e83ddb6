/**
 * Business rule tasks (issue 38): DMN deployed beside BPMN, decisions evaluated inside the step that enters
 * the task with the result shaped as Zeebe shapes it, every evaluation recorded on the instance, and a
 * decision that cannot be found or evaluated an incident that a retry evaluates again.
 */
import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { around, definitions, ext, process } from './fixtures/bpmn/xml.js';
import { dmn, literal, table } from './fixtures/dmn/xml.js';

function engine(handlers: ConstructorParameters<typeof Engine>[0]['handlers'] = {}): Engine {
  return new Engine({ repository: createMemoryRepository(), handlers });
}

/** A process `p` around one business rule task `x` calling `decisionId`, its result in `result`. */
function calling(decisionId: string, extra = '', loop = ''): string {
  return around(
    `<bpmn:businessRuleTask id="x">${ext(`<zeebe:calledDecision decisionId="${decisionId}" resultVariable="result" ${extra}/>`)}${loop}</bpmn:businessRuleTask>`,
  );
}

async function run(e: Engine, variables: Record<string, unknown> = {}) {
  const id = await e.start('p', { variables });
  const settled = await e.settled(id);
  const view = await e.instance(id);
  return { id, settled, view: view! };
}

const grades = table('grade', {
  hitPolicy: 'UNIQUE',
  inputs: ['score'],
  outputs: ['grade'],
  rules: [
    ['>= 90', '"A"'],
    ['[50..90)', '"B"'],
  ],
});

describe('deploying DMN', () => {
  it('should deploy a DMN file by its namespace, versioning its decisions as a BPMN file is versioned', async () => {
    const e = engine();
    const first = await e.deploy(dmn(grades));
    expect(first).toMatchObject({
      kind: 'dmn',
      definitionId: 'rules',
      version: 1,
      processes: [],
      decisions: [{ id: 'grade', name: 'grade', version: 1 }],
    });
    // the same file again is one deployment; a changed one is the next version of each of its decisions
    expect(await e.deploy(dmn(grades))).toMatchObject({ version: 1, digest: first.digest });
    const changed = await e.deploy(dmn(grades.replace('"B"', '"C"')));
    expect(changed).toMatchObject({ version: 2, decisions: [{ id: 'grade', version: 2 }] });
    await e.close();
  });

  it('should keep DMN and BPMN versions apart when their definitions share an id', async () => {
    const e = engine();
    await e.deploy(definitions(process('<bpmn:startEvent id="s" />'), 'shared'));
    const decisions = await e.deploy(dmn(grades, 'shared'));
    expect(decisions).toMatchObject({ kind: 'dmn', definitionId: 'shared', version: 1 });
    await e.close();
  });

  it('should refuse a DMN model with problems as a ModelError naming the element', async () => {
    const e = engine();
    const broken = dmn(literal('total', 'a +', {}));
    const error = await e.deploy(broken).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).issues[0]).toMatchObject({ elementId: expect.stringContaining('total') });
    await e.close();
  });
});

describe('a business rule task', () => {
  it("should leave with the decision's single output as its result, and null when no rule matches", async () => {
    const e = engine();
    await e.deploy(dmn(grades));
    await e.deploy(calling('grade'));
    expect((await run(e, { score: 95 })).view.variables.result).toBe('A');
    const none = await run(e, { score: 10 });
    expect(none.settled.status).toBe('completed');
    expect(none.view.variables.result).toBeNull();
    await e.close();
  });

  it('should shape results as Zeebe does: a context for several outputs, a list for collect, a number for C+', async () => {
    const e = engine();
    await e.deploy(
      dmn(
        [
          table('both', { inputs: ['n'], outputs: ['a', 'b'], rules: [['-', 'n + 1', 'n * 2']] }),
          table('all', {
            hitPolicy: 'COLLECT',
            inputs: ['n'],
            outputs: ['tag'],
            rules: [
              ['> 1', '"big"'],
              ['odd(n)', '"odd"'],
              ['< 0', '"negative"'],
            ],
          }),
          table('sum', {
            hitPolicy: 'COLLECT',
            aggregation: 'SUM',
            inputs: ['n'],
            outputs: ['points'],
            rules: [
              ['-', '10'],
              ['> 1', '5'],
            ],
          }),
        ].join('\n'),
      ),
    );
    const results: Record<string, unknown> = {};
    for (const id of ['both', 'all', 'sum']) {
      await e.deploy(calling(id).replace('id="p"', `id="p-${id}"`));
      const instance = await e.start(`p-${id}`, { variables: { n: 3 } });
      await e.settled(instance);
      results[id] = (await e.instance(instance))?.variables.result;
    }
    expect(results).toEqual({ both: { a: 4, b: 6 }, all: ['big', 'odd'], sum: 15 });
    await e.close();
  });

  it('should evaluate a decision graph, required decisions first, and record each with its inputs and matched rules', async () => {
    const e = engine();
    await e.deploy(
      dmn(
        [
          literal('base', 'price * 2'),
          table('band', {
            inputs: ['base'],
            outputs: ['band'],
            requires: ['base'],
            rules: [
              ['< 100', '"low"'],
              ['>= 100', '"high"'],
            ],
          }),
        ].join('\n'),
      ),
    );
    await e.deploy(calling('band'));
    const { view } = await run(e, { price: 70 });
    expect(view.variables.result).toBe('high');
    expect(view.decisions).toHaveLength(1);
    const [evaluation] = view.decisions;
    expect(evaluation).toMatchObject({
      elementId: 'x',
      decisionId: 'band',
      version: 1,
      definitionId: 'rules',
      result: 'high',
    });
    expect(evaluation?.failure).toBeUndefined();
    expect(evaluation?.evaluated.map((decision) => decision.decisionId)).toEqual(['base', 'band']);
    expect(evaluation?.evaluated[1]).toMatchObject({
      decisionType: 'decisionTable',
      inputs: [{ id: 'band-in-1', value: 140 }],
      matchedRules: [{ ruleId: 'band-rule-2', ruleIndex: 2, outputs: [{ id: 'band-out-1', value: 'high' }] }],
      output: 'high',
    });
    await e.close();
  });

  it('should call the decision a FEEL decisionId names', async () => {
    const e = engine();
    await e.deploy(dmn([literal('en', '"hello"'), literal('de', '"hallo"')].join('\n')));
    await e.deploy(calling('=language'));
    expect((await run(e, { language: 'de' })).view.variables.result).toBe('hallo');
    await e.close();
  });

  it('should take the latest version, or the one with the version tag bindingType="versionTag" names', async () => {
    const e = engine();
    await e.deploy(dmn(literal('fee', '1', { versionTag: 'v1' })));
    await e.deploy(dmn(literal('fee', '2', { versionTag: 'v2' })));
    await e.deploy(calling('fee'));
    const latest = await run(e);
    expect(latest.view.variables.result).toBe(2);
    expect(latest.view.decisions[0]).toMatchObject({ version: 2, versionTag: 'v2' });
    await e.deploy(calling('fee', 'bindingType="versionTag" versionTag="v1"'));
    const tagged = await run(e);
    expect(tagged.view.variables.result).toBe(1);
    expect(tagged.view.decisions[0]).toMatchObject({ version: 1, versionTag: 'v1' });
    await e.close();
  });

  it('should take, with bindingType="deployment", the version deployed together with the process', async () => {
    const e = engine();
    const [decisions, processFile] = await e.deployTogether([
      dmn(literal('fee', '1')),
      calling('fee', 'bindingType="deployment"'),
    ]);
    expect(decisions).toMatchObject({ kind: 'dmn', decisions: [{ id: 'fee', version: 1 }] });
    expect(processFile).toMatchObject({ kind: 'bpmn', processes: ['p'] });
    await e.deploy(dmn(literal('fee', '2')));
    const bound = await run(e);
    expect(bound.view.variables.result).toBe(1);
    expect(bound.view.decisions[0]).toMatchObject({ decisionId: 'fee', version: 1 });
    await e.close();
  });

  it('should keep what was deployed together across engines on one store', async () => {
    const repository = createMemoryRepository();
    const first = new Engine({ repository, handlers: {} });
    await first.deployTogether([dmn(literal('fee', '1')), calling('fee', 'bindingType="deployment"')]);
    await first.deploy(dmn(literal('fee', '2')));
    await first.close();
    const second = new Engine({ repository, handlers: {} });
    expect((await run(second)).view.variables.result).toBe(1);
    await second.close();
  });

  it('should raise an incident, with bindingType="deployment", when the decision was not deployed with the process', async () => {
    const e = engine();
    await e.deploy(dmn(literal('fee', '1')));
    await e.deploy(calling('fee', 'bindingType="deployment"'));
    const { settled } = await run(e);
    expect(settled.status === 'waiting' && settled.incidents).toEqual([
      expect.objectContaining({
        kind: 'decision-failed',
        message:
          "Expected to evaluate decision 'fee' with binding type 'deployment', but no file deployed together with the process holds it",
      }),
    ]);
    await e.close();
  });

  it('should store nothing of files deployed together when one of them is refused, naming which', async () => {
    const repository = createMemoryRepository();
    const e = new Engine({ repository, handlers: {} });
    const error = await e
      .deployTogether([dmn(literal('fee', '1')), calling('fee').replace('zeebe:calledDecision', 'zeebe:calledNothing')])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).fileIndex).toBe(1);
    expect(await repository.deployments()).toEqual([]);
    await e.close();
  });

  it('should raise an incident for a decision not deployed, which a retry evaluates once it is', async () => {
    const e = engine();
    await e.deploy(calling('grade'));
    const { id, settled } = await run(e, { score: 70 });
    expect(settled.status === 'waiting' && settled.incidents).toEqual([
      expect.objectContaining({
        nodeId: 'x',
        kind: 'decision-failed',
        message: "Expected to evaluate decision 'grade', but no decision with this id is deployed",
      }),
    ]);
    await e.deploy(dmn(grades));
    await e.retryIncident(settled.status === 'waiting' ? settled.incidents[0]!.id : '');
    expect((await e.settled(id)).status).toBe('completed');
    expect((await e.instance(id))?.variables.result).toBe('B');
    await e.close();
  });

  it('should raise an incident naming the rules when a UNIQUE table matches twice, and record the failure', async () => {
    const e = engine();
    await e.deploy(
      dmn(
        table('clash', {
          hitPolicy: 'UNIQUE',
          inputs: ['n'],
          outputs: ['v'],
          rules: [
            ['> 1', '"a"'],
            ['> 2', '"b"'],
          ],
        }),
      ),
    );
    await e.deploy(calling('clash'));
    const { settled, view } = await run(e, { n: 5 });
    const incident = settled.status === 'waiting' ? settled.incidents[0] : undefined;
    expect(incident).toMatchObject({ kind: 'decision-failed', nodeId: 'x' });
    expect(incident?.message).toContain("Expected to evaluate decision 'clash'");
    expect(incident?.message).toContain('clash-rule-1');
    expect(incident?.message).toContain('clash-rule-2');
    expect(view.decisions).toHaveLength(1);
    expect(view.decisions[0]?.failure).toBe(incident?.message);
    expect(view.decisions[0]).not.toHaveProperty('result');
    await e.close();
  });

  it("should apply output mappings to the decision's result", async () => {
    const e = engine();
    await e.deploy(dmn(table('both', { inputs: ['n'], outputs: ['a', 'b'], rules: [['-', 'n + 1', 'n * 2']] })));
    await e.deploy(
      around(
        `<bpmn:businessRuleTask id="x">${ext('<zeebe:calledDecision decisionId="both" resultVariable="r" /><zeebe:ioMapping><zeebe:output source="=r.b" target="doubled" /></zeebe:ioMapping>')}</bpmn:businessRuleTask>`,
      ),
    );
    const { view } = await run(e, { n: 4 });
    expect(view.variables.doubled).toBe(8);
    expect(view.variables).not.toHaveProperty('r');
    await e.close();
  });

  it('should evaluate once per body as a multi-instance, collecting each result', async () => {
    const e = engine();
    await e.deploy(dmn(literal('square', 'item * item')));
    await e.deploy(
      calling(
        'square',
        '',
        '<bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=[1, 2, 3]" inputElement="item" outputCollection="squares" outputElement="=result" /></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>',
      ),
    );
    const { view } = await run(e);
    expect(view.variables.squares).toEqual([1, 4, 9]);
    expect(view.decisions.map((evaluation) => evaluation.result)).toEqual(expect.arrayContaining([1, 4, 9]));
    await e.close();
  });

  it('should run a business rule task with a zeebe:taskDefinition as a job, as Zeebe does', async () => {
    const e = engine({ rules: () => ({ decided: 'by a worker' }) });
    await e.deploy(
      around(`<bpmn:businessRuleTask id="x">${ext('<zeebe:taskDefinition type="rules" />')}</bpmn:businessRuleTask>`),
    );
    const { view } = await run(e);
    expect(view.variables.decided).toBe('by a worker');
    expect(view.decisions).toEqual([]);
    await e.close();
  });
});

describe('a business rule task as the compiler reads it', () => {
  const refused = async (body: string) => {
    const e = engine();
    const error = await e
      .deploy(around(`<bpmn:businessRuleTask id="x">${body}</bpmn:businessRuleTask>`))
      .catch((caught: unknown) => caught);
    await e.close();
    return error instanceof ModelError ? error.issues.map((issue) => issue.message) : error;
  };

  it('should refuse one with neither a called decision nor a task definition', async () => {
    expect(await refused('')).toEqual([expect.stringContaining('needs a zeebe:calledDecision')]);
  });

  it('should refuse one with both a called decision and a task definition', async () => {
    expect(
      await refused(ext('<zeebe:calledDecision decisionId="d" resultVariable="r" /><zeebe:taskDefinition type="t" />')),
    ).toEqual([expect.stringContaining('has both zeebe:calledDecision and zeebe:taskDefinition')]);
  });

  it('should refuse a called decision without a decisionId or a resultVariable', async () => {
    expect(await refused(ext('<zeebe:calledDecision resultVariable="r" />'))).toEqual([
      expect.stringContaining('zeebe:calledDecision needs a decisionId'),
    ]);
    expect(await refused(ext('<zeebe:calledDecision decisionId="d" />'))).toEqual([
      expect.stringContaining('zeebe:calledDecision needs a resultVariable'),
    ]);
  });

  it("should refuse a bindingType that is not one of Zeebe's", async () => {
    expect(
      await refused(ext('<zeebe:calledDecision decisionId="d" resultVariable="r" bindingType="newest" />')),
    ).toEqual([expect.stringContaining('zeebe:calledDecision bindingType "newest" is not one of')]);
  });
});
