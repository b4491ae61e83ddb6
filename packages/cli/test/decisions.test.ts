/**
 * DMN from the command line: `run` deploys DMN files beside the BPMN file it starts, `show` lists what an
 * instance decided, `decide` evaluates one decision without a store, `inspect` describes a DMN file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { Workspace } from './helpers.js';

const ws = new Workspace();
afterAll(() => ws.remove());

const RULES = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="rules" name="Rules" namespace="http://thresher.dev/cli/rules">
  <decision id="grade" name="Grade">
    <decisionTable id="grade-table" hitPolicy="UNIQUE">
      <input id="grade-score" label="Score"><inputExpression id="grade-score-x" typeRef="number"><text>score</text></inputExpression></input>
      <output id="grade-out" name="grade" typeRef="string" />
      <rule id="low"><inputEntry id="low-in"><text>&lt; 50</text></inputEntry><outputEntry id="low-out"><text>"C"</text></outputEntry></rule>
      <rule id="mid"><inputEntry id="mid-in"><text>[50..80)</text></inputEntry><outputEntry id="mid-out"><text>"B"</text></outputEntry></rule>
      <rule id="high"><inputEntry id="high-in"><text>&gt;= 80</text></inputEntry><outputEntry id="high-out"><text>"A"</text></outputEntry></rule>
      <rule id="top"><inputEntry id="top-in"><text>&gt;= 90</text></inputEntry><outputEntry id="top-out"><text>"A+"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="bonus" name="Bonus">
    <informationRequirement id="bonus-needs-grade"><requiredDecision href="#grade" /></informationRequirement>
    <literalExpression id="bonus-x"><text>if Grade = "A" then 100 else 0</text></literalExpression>
  </decision>
</definitions>
`;

const PROCESS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="grading-defs" targetNamespace="http://thresher.dev/cli">
  <bpmn:process id="grading" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:businessRuleTask id="decideBonus">
      <bpmn:extensionElements><zeebe:calledDecision decisionId="bonus" resultVariable="bonus" /></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:businessRuleTask>
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="decideBonus" />
    <bpmn:sequenceFlow id="f2" sourceRef="decideBonus" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>
`;

ws.write('rules.dmn', RULES);
ws.write('grading.bpmn', PROCESS);

describe('thresher run with DMN files', () => {
  it('should deploy the DMN files named after the BPMN file and run the business rule task on them', async () => {
    const store = `sqlite:${ws.path('run.db')}`;
    const run = await ws.thresher([
      'run',
      'grading.bpmn',
      'rules.dmn',
      '--var',
      'score=85',
      '--store',
      store,
      '--json',
    ]);
    expect(run.code).toBe(ExitCode.Ok);
    const outcome = run.json<{ status: string; instanceId: string; variables: Record<string, unknown> }>();
    expect(outcome).toMatchObject({ status: 'completed', variables: { score: 85, bonus: 100 } });
    const told = await ws.thresher(['run', 'grading.bpmn', 'rules.dmn', '--var', 'score=85', '--store', 'memory:']);
    expect(told.stdout + told.stderr).toMatch(/deployed decisions rules version 1/);

    const show = await ws.thresher(['show', outcome.instanceId, '--store', store]);
    expect(show.code).toBe(ExitCode.Ok);
    expect(show.stdout).toContain('Decisions:');
    expect(show.stdout).toContain('decideBonus: bonus version 1 = 100');
    expect(show.stdout).toMatch(/rule 3 high: grade = "A"/);
  });

  it('should refuse a broken DMN file before anything is deployed, naming the file and the element', async () => {
    ws.write('broken.dmn', RULES.replace('if Grade = "A" then 100 else 0', 'if Grade = then'));
    const run = await ws.thresher(['run', 'grading.bpmn', 'broken.dmn', '--store', 'memory:']);
    expect(run.code).toBe(ExitCode.Failed);
    expect(run.stderr).toContain('broken.dmn: invalid model');
    expect(run.stderr).toMatch(/bonus/);
  });

  it('should refuse a run with no BPMN file to start', async () => {
    const run = await ws.thresher(['run', 'rules.dmn', '--store', 'memory:']);
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stderr).toContain('no BPMN file among rules.dmn');
  });
});

describe('thresher decide', () => {
  it('should print the decisions evaluated, the rules that matched and the result', async () => {
    const decided = await ws.thresher(['decide', 'rules.dmn', '--decision', 'bonus', '--var', 'score=60']);
    expect(decided.code).toBe(ExitCode.Ok);
    expect(decided.stdout).toContain('input Score = 60');
    expect(decided.stdout).toMatch(/rule 2 mid: grade = "B"/);
    expect(decided.stdout).toMatch(/^bonus = 0$/m);
  });

  it('should give the evaluation as one JSON document under --json', async () => {
    const decided = await ws.thresher(['decide', 'rules.dmn', '--decision', 'grade', '--var', 'score=10', '--json']);
    expect(decided.code).toBe(ExitCode.Ok);
    expect(decided.json()).toMatchObject({
      status: 'decided',
      decisionId: 'grade',
      result: 'C',
      evaluated: [
        { decisionId: 'grade', inputs: [{ id: 'grade-score', value: 10 }], matchedRules: [{ ruleId: 'low' }] },
      ],
    });
  });

  it('should fail, naming the rules, when a UNIQUE table has two hits', async () => {
    const decided = await ws.thresher(['decide', 'rules.dmn', '--decision', 'grade', '--var', 'score=95']);
    expect(decided.code).toBe(ExitCode.Failed);
    expect(decided.stdout).toContain("Expected to evaluate decision 'grade', but");
    expect(decided.stdout).toContain('high');
    expect(decided.stdout).toContain('top');
  });

  it('should ask for --decision when the file has several, naming them', async () => {
    const decided = await ws.thresher(['decide', 'rules.dmn', '--var', 'score=95']);
    expect(decided.code).toBe(ExitCode.Usage);
    expect(decided.stderr).toContain('choose one with --decision: grade, bonus');
    const unknown = await ws.thresher(['decide', 'rules.dmn', '--decision', 'nope']);
    expect(unknown.code).toBe(ExitCode.Usage);
    expect(unknown.stderr).toContain('has no decision "nope"; it has grade, bonus');
  });
});

describe('thresher inspect FILE.dmn', () => {
  it('should list the decisions, their requirements and each table', async () => {
    const inspected = await ws.thresher(['inspect', 'rules.dmn']);
    expect(inspected.code).toBe(ExitCode.Ok);
    expect(inspected.stdout).toContain('rules.dmn: DMN definitions rules "Rules"');
    expect(inspected.stdout).toMatch(/grade\s+Grade\s+decision table UNIQUE/);
    expect(inspected.stdout).toMatch(/bonus\s+Bonus\s+literalExpression\s+grade/);
    expect(inspected.stdout).toContain('decision table grade: 4 rules');
    expect(inspected.stdout).toContain('input  Score: score (number)');
    expect(inspected.stdout).toContain('output grade (string)');
  });

  it('should give the same as one JSON document under --json', async () => {
    const inspected = await ws.thresher(['inspect', 'rules.dmn', '--json']);
    expect(inspected.code).toBe(ExitCode.Ok);
    expect(inspected.json()).toMatchObject({
      status: 'ok',
      kind: 'dmn',
      definitionId: 'rules',
      decisions: [
        { id: 'grade', table: { hitPolicy: 'UNIQUE', rules: 4 } },
        { id: 'bonus', requires: ['grade'] },
      ],
    });
  });

  it('should print every issue of a broken DMN file and fail', async () => {
    ws.write('broken-inspect.dmn', RULES.replace('if Grade = "A" then 100 else 0', 'if Grade = then'));
    const inspected = await ws.thresher(['inspect', 'broken-inspect.dmn']);
    expect(inspected.code).toBe(ExitCode.Failed);
    expect(inspected.stdout + inspected.stderr).toContain('bonus-x');
  });

  it('should refuse --touchpoints on a DMN file as a usage error', async () => {
    const inspected = await ws.thresher(['inspect', 'rules.dmn', '--touchpoints']);
    expect(inspected.code).toBe(ExitCode.Usage);
    expect(inspected.stderr).toContain('rules.dmn is a DMN file');
  });
});
