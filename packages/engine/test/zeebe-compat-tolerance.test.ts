/**
 * Zeebe compatibility, tolerance and clear refusals: what Camunda Modeler (Camunda 8.6) writes and Zeebe
 * deploys, Thresher deploys too, noting what it does not use in warnings; what it refuses, it refuses
 * naming the element, the line and the fix.
 */
import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { compile } from '../src/model/index.js';
import { engineWith } from './fixtures/runtime.js';

// ── Camunda Modeler documents ─────────────────────────────────────────────────────────────────────────

const PROCESS = 'Process_0zc8k1m';

/** A flow node as Modeler writes it: `ext` goes in its extension elements, `body` after incoming/outgoing. */
interface El {
  tag: string;
  id: string;
  name?: string;
  attrs?: string;
  ext?: string;
  body?: string;
  row?: number;
}
type Fl = [id: string, source: string, target: string, condition?: string];

function size(tag: string): [number, number] {
  return tag.endsWith('Event') ? [36, 36] : tag.endsWith('Gateway') ? [50, 50] : [100, 80];
}

/** What a document holds beside its nodes and flows: root elements, process extensions, raw XML, more DI. */
interface Extra {
  roots?: string;
  processExt?: string;
  raw?: string;
  di?: string;
}

/** A whole Camunda Modeler document: one executable process, `roots` after it, then its diagram. */
function modeler(elements: El[], flows: Fl[], extra: Extra = {}): string {
  const box = new Map<string, { x: number; y: number; w: number; h: number }>();
  elements.forEach((el, i) => {
    const [w, h] = size(el.tag);
    box.set(el.id, { x: 160 + i * 150, y: 120 + (el.row ?? 0) * 130 - h / 2, w, h });
  });
  const refs = (id: string) =>
    [
      ...flows.filter((f) => f[2] === id).map((f) => `<bpmn:incoming>${f[0]}</bpmn:incoming>`),
      ...flows.filter((f) => f[1] === id).map((f) => `<bpmn:outgoing>${f[0]}</bpmn:outgoing>`),
    ].join('');
  const nodes = elements.map(
    (el) => `    <bpmn:${el.tag} id="${el.id}"${el.name ? ` name="${el.name}"` : ''}${el.attrs ? ` ${el.attrs}` : ''}>
      ${el.ext ? `<bpmn:extensionElements>${el.ext}</bpmn:extensionElements>` : ''}${refs(el.id)}${el.body ?? ''}
    </bpmn:${el.tag}>`,
  );
  const links = flows.map(([id, source, target, condition]) =>
    condition === undefined
      ? `    <bpmn:sequenceFlow id="${id}" sourceRef="${source}" targetRef="${target}" />`
      : `    <bpmn:sequenceFlow id="${id}" sourceRef="${source}" targetRef="${target}">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${condition}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>`,
  );
  const shapes = [...box].map(
    ([id, b]) =>
      `      <bpmndi:BPMNShape id="${id}_di" bpmnElement="${id}"><dc:Bounds x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" /></bpmndi:BPMNShape>`,
  );
  const edges = flows.map(([id, s, t]) => {
    const [a, b] = [box.get(s)!, box.get(t)!];
    return `      <bpmndi:BPMNEdge id="${id}_di" bpmnElement="${id}"><di:waypoint x="${a.x + a.w}" y="${a.y + a.h / 2}" /><di:waypoint x="${b.x}" y="${b.y + b.h / 2}" /></bpmndi:BPMNEdge>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:modeler="http://camunda.org/schema/modeler/1.0" id="Definitions_1m4x7qa" targetNamespace="http://bpmn.io/schema/bpmn" exporter="Camunda Modeler" exporterVersion="5.28.0" modeler:executionPlatform="Camunda Cloud" modeler:executionPlatformVersion="8.6.0">
  <bpmn:process id="${PROCESS}" name="Compat" isExecutable="true">
    ${extra.processExt ? `<bpmn:extensionElements>${extra.processExt}</bpmn:extensionElements>` : ''}
${nodes.join('\n')}
${links.join('\n')}
${extra.raw ?? ''}
  </bpmn:process>
  ${extra.roots ?? ''}
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="${PROCESS}">
${shapes.join('\n')}
${edges.join('\n')}
${extra.di ?? ''}
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
`;
}

const START: El = { tag: 'startEvent', id: 'StartEvent_1' };
const END: El = { tag: 'endEvent', id: 'Event_0e9m3kd' };

/** Start → one element `Activity_0x1abc` (a service task unless told) → end. */
function single(ext: string, tag = 'serviceTask', body = ''): string {
  const task: El = { tag, id: 'Activity_0x1abc', name: 'Work', ext, body };
  return modeler(
    [START, task, END],
    [
      ['Flow_1q2w3e', 'StartEvent_1', 'Activity_0x1abc'],
      ['Flow_0p9o8i', 'Activity_0x1abc', 'Event_0e9m3kd'],
    ],
  );
}

/** The `ModelError` that `engine.deploy(xml)` rejects with. */
async function refused(xml: string): Promise<ModelError> {
  const engine = new Engine({ repository: createMemoryRepository() });
  const error = await engine.deploy(xml).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModelError);
  expect((error as ModelError).code).toBe('THRESHER_MODEL');
  return error as ModelError;
}

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
  ])('an embedded zeebe:userTaskForm whose body is %s is warned about, naming the form', async (_, form) => {
    const xml = withForm(form);
    await deploysAndRuns(xml);
    expect(await warnings(xml)).toContainEqual(expect.stringMatching(/userTaskForm/i));
  });

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

  it('zeebe:executionListeners on a task is refused by name, on that task', async () => {
    const listeners =
      '<zeebe:executionListeners><zeebe:executionListener eventType="start" type="audit-start" /></zeebe:executionListeners>';
    const error = await refused(single(`${WORK}${listeners}`));
    const issue = error.issues.find((i) => i.elementId === 'Activity_0x1abc');
    expect(issue?.message).toMatch(/zeebe:executionListeners/i);
  });
});
