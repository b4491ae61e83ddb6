import { describe, expect, it } from 'vitest';
import { compile } from '../src/model/index.js';
import { type El, END, modeler, PROCESS, refused, START, single } from './fixtures/bpmn/modeler.js';
import { engineWith } from './fixtures/runtime.js';

/** Deploys through an engine and runs one instance to its end (completing its user tasks). */
async function deploysAndRuns(xml: string): Promise<void> {
  const engine = await engineWith(xml, { work: () => ({ worked: true }) });
  const id = await engine.start(PROCESS);
  let state = await engine.settled(id);
  while (state.status === 'waiting' && state.userTasks.length > 0) {
    for (const task of state.userTasks) await engine.completeUserTask(task.id);
    state = await engine.settled(id);
  }
  expect(state.status).toBe('completed');
}

/** The compile warnings of a model, as one message each. */
async function warnings(xml: string): Promise<string[]> {
  return (await compile(xml)).warnings.map((warning) => warning.message);
}

const WORK = '<zeebe:taskDefinition type="work" />';

/** A job-worker user task showing the process's embedded form `userTaskForm_1`, whose body is `form`. */
function withForm(form: string): string {
  const task: El = {
    tag: 'userTask',
    id: 'Activity_0x1abc',
    name: 'Review',
    ext: '<zeebe:formDefinition formKey="camunda-forms:bpmn:userTaskForm_1" />',
  };
  return modeler(
    [START, task, END],
    [
      ['Flow_1q2w3e', 'StartEvent_1', 'Activity_0x1abc'],
      ['Flow_0p9o8i', 'Activity_0x1abc', 'Event_0e9m3kd'],
    ],
    { processExt: `<zeebe:userTaskForm id="userTaskForm_1">${form}</zeebe:userTaskForm>` },
  );
}

// ── the suite ─────────────────────────────────────────────────────────────────────────────────────────

describe('what Zeebe deploys, Thresher deploys and runs, with a warning', () => {
  const ghosts = `<bpmndi:BPMNShape id="Shape_0gone01" bpmnElement="Gone_1"><dc:Bounds x="400" y="300" width="100" height="80" /></bpmndi:BPMNShape>
      <bpmndi:BPMNEdge id="Edge_0gone02" bpmnElement="Flow_1gone2"><di:waypoint x="500" y="340" /><di:waypoint x="560" y="340" /></bpmndi:BPMNEdge>`;
  const haunted = modeler(
    [START, { tag: 'serviceTask', id: 'Activity_0x1abc', ext: WORK }, END],
    [
      ['Flow_1q2w3e', 'StartEvent_1', 'Activity_0x1abc'],
      ['Flow_0p9o8i', 'Activity_0x1abc', 'Event_0e9m3kd'],
    ],
    { di: ghosts },
  );

  it('a diagram shape pointing at an element that does not exist is warned about, naming the shape and the element', async () => {
    await deploysAndRuns(haunted);
    expect(await warnings(haunted)).toContainEqual(
      expect.stringMatching(/Shape_0gone01[\s\S]*Gone_1|Gone_1[\s\S]*Shape_0gone01/),
    );
  });

  it('a diagram edge pointing at a flow that does not exist is warned about, naming the edge and the flow', async () => {
    await deploysAndRuns(haunted);
    expect(await warnings(haunted)).toContainEqual(
      expect.stringMatching(/Edge_0gone02[\s\S]*Flow_1gone2|Flow_1gone2[\s\S]*Edge_0gone02/),
    );
  });

  it.each([
    ['JSON with escaped markup', '{ "components": [ { "label": "a&lt;br&gt;b" } ] }'],
    ['CDATA holding a raw <br>', '<![CDATA[ {"text":"x<br>y"} ]]>'],
    ['a self-closed <br/> element inside the JSON', '{ "text": "x<br/>y" }'],
  ])(
    'an embedded zeebe:userTaskForm whose body is %s deploys and runs, its form read whole for the web view',
    async (_, form) => {
      const xml = withForm(form);
      await deploysAndRuns(xml);
      expect(await warnings(xml)).not.toContainEqual(expect.stringMatching(/userTaskForm/i));
      const task = (await compile(xml)).processes.values().next().value?.nodes.get('Activity_0x1abc');
      const compiled = task && 'form' in task ? task.form : undefined;
      expect(compiled?.kind).toBe('embedded');
      expect(JSON.parse(compiled?.kind === 'embedded' ? compiled.json : 'null')).toBeTypeOf('object');
    },
  );

  it.each([
    ['an unknown zeebe: extension element', '<zeebe:somethingNew foo="1" />', /somethingNew/],
    [
      'an extension element of a foreign namespace',
      '<acme:meta xmlns:acme="http://acme.example/x" />',
      /acme:meta|acme\.example\/x\}?meta/,
    ],
  ])('%s deploys and runs, with a warning naming it', async (_, element, named) => {
    const xml = single(`${WORK}${element}`);
    await deploysAndRuns(xml);
    expect(await warnings(xml)).toContainEqual(expect.stringMatching(named));
  });
});

describe('what Thresher refuses, it refuses clearly', () => {
  it('a sequence flow without an id is refused, naming its source and target, on its line', async () => {
    const xml = modeler(
      [START, { tag: 'serviceTask', id: 'Activity_0x1abc', ext: WORK }, END],
      [['Flow_1q2w3e', 'StartEvent_1', 'Activity_0x1abc']],
      { raw: '    <bpmn:sequenceFlow sourceRef="Activity_0x1abc" targetRef="Event_0e9m3kd" />' },
    );
    const line = xml.split('\n').findIndex((text) => text.includes('<bpmn:sequenceFlow sourceRef=')) + 1;
    const error = await refused(xml);
    const issue = error.issues.find(
      (i) => i.message.includes('Activity_0x1abc') && i.message.includes('Event_0e9m3kd'),
    );
    expect(issue).toBeDefined();
    expect(issue!.line).toBe(line);
  });

  it('a space before = in an attribute (isExecutable ="true") is well-formed XML and compiles', async () => {
    const xml = single(WORK).replace('isExecutable="true"', 'isExecutable ="true"');
    const model = await compile(xml);
    expect(model.processes.get(PROCESS)?.executable).toBe(true);
  });

  it('a document with a DOCTYPE declaring an entity is refused: DTDs and entities are not accepted', async () => {
    const xml = single(WORK).replace(
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE definitions [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>',
    );
    const messages = (await refused(xml)).issues.map((issue) => issue.message).join('\n');
    expect(messages).toMatch(/DOCTYPE|DTD/);
    expect(messages).toMatch(/entit/i);
  });

  it('definitions in the BPMN 2.0 beta namespace are refused, naming it and the BPMN 2.0 namespace', async () => {
    const beta = 'http://www.omg.org/spec/BPMN/20100501/MODEL';
    const xml = single(WORK).replace('http://www.omg.org/spec/BPMN/20100524/MODEL', beta);
    const messages = (await refused(xml)).issues.map((issue) => issue.message).join('\n');
    expect(messages).toContain(beta);
    expect(messages).toContain('http://www.omg.org/spec/BPMN/20100524/MODEL');
  });

  it('zeebe:executionListeners on a task compile onto that task', async () => {
    const listeners =
      '<zeebe:executionListeners><zeebe:executionListener eventType="start" type="audit-start" /></zeebe:executionListeners>';
    const model = await compile(single(`${WORK}${listeners}`));
    const task = [...model.processes.values()][0]!.nodes.get('Activity_0x1abc');
    expect(task?.listeners).toEqual({ start: [{ taskType: 'audit-start', retries: undefined }] });
  });
});
