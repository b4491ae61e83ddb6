/**
 * Touchpoints, model side (issue 17): which element types declare a direction, what a
 * `thresher:touchpoint` mark does to an element, each mark the compiler refuses (naming the element), and
 * that unmarked models keep their IR and digest.
 */
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { compile, type Node, type ProcessModel } from '../src/model/index.js';
import { touchpointOf } from '../src/touchpoints/declaration.js';
import {
  around,
  boundary,
  bpmn,
  chain,
  ext,
  message,
  messageDefinition,
  signal,
  signalDefinition,
  timer,
  withRoots,
} from './fixtures/bpmn/xml.js';

const ROOTS = `${message('m', 'order-paid', '=orderId')}\n${signal('s', 'stop')}`;
const mark = (attributes = '') => ext(`<thresher:touchpoint ${attributes}/>`);

function nodeOf(model: ProcessModel, id: string): Node {
  const node = [...model.processes.values()][0]?.nodes.get(id);
  if (!node) throw new Error(`no node ${id}`);
  return node;
}

/** `start → x → end`, with the message and signal roots `x` may refer to. */
const aroundWithRoots = (element: string) =>
  withRoots(
    ROOTS,
    `<bpmn:startEvent id="start" />\n${element}\n<bpmn:endEvent id="end" />\n${chain('start', 'x', 'end')}`,
  );

/** A process whose event sub-process `esp` starts with `start` (its event definition as given). */
const eventSubProcess = (definition: string, attributes = '') =>
  withRoots(
    ROOTS,
    `<bpmn:startEvent id="start" /><bpmn:endEvent id="end" />${chain('start', 'end')}
    <bpmn:subProcess id="esp" triggeredByEvent="true">
      <bpmn:startEvent id="x" ${attributes}>${definition}</bpmn:startEvent>
      <bpmn:endEvent id="esp_end" />${chain('x', 'esp_end')}
    </bpmn:subProcess>`,
  );

async function issuesOf(xml: string): Promise<ModelError['issues']> {
  const error = await compile(xml).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelError);
  return (error as ModelError).issues;
}

const declared = (xml: string) => compile(xml).then((model) => touchpointOf(nodeOf(model, 'x')));

describe('touchpointOf: the directions element types declare', () => {
  it.each([
    ['ReceiveTask', 'inbound', 'wait', 'message', aroundWithRoots('<bpmn:receiveTask id="x" messageRef="m" />')],
    [
      'IntermediateCatchEvent with a message',
      'inbound',
      'wait',
      'message',
      aroundWithRoots(`<bpmn:intermediateCatchEvent id="x">${messageDefinition('m')}</bpmn:intermediateCatchEvent>`),
    ],
    [
      'IntermediateCatchEvent with a signal',
      'inbound',
      'wait',
      'signal',
      aroundWithRoots(`<bpmn:intermediateCatchEvent id="x">${signalDefinition('s')}</bpmn:intermediateCatchEvent>`),
    ],
    [
      'StartEvent of an event sub-process, message',
      'inbound',
      'wait',
      'message',
      eventSubProcess(messageDefinition('m')),
    ],
    ['StartEvent of an event sub-process, signal', 'inbound', 'wait', 'signal', eventSubProcess(signalDefinition('s'))],
    [
      'SendTask',
      'outbound',
      'wait',
      'job',
      around(`<bpmn:sendTask id="x">${ext('<zeebe:taskDefinition type="mail" />')}</bpmn:sendTask>`),
    ],
    [
      'IntermediateThrowEvent with a message',
      'outbound',
      'wait',
      'job',
      around(
        `<bpmn:intermediateThrowEvent id="x">${ext('<zeebe:taskDefinition type="notify" />')}${messageDefinition()}</bpmn:intermediateThrowEvent>`,
      ),
    ],
    ['UserTask', 'internal', 'select', null, around('<bpmn:userTask id="x" />')],
    ['ManualTask', 'internal', 'select', null, around('<bpmn:manualTask id="x" />')],
  ])('%s is a touchpoint: %s, %s, via %s', async (_, direction, kind, via, xml) => {
    expect(await declared(xml)).toEqual({ direction, kind, via });
  });

  it('EndEvent with a message is an outbound touchpoint reached by its job', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:endEvent id="x">${ext('<zeebe:taskDefinition type="notify" />')}${messageDefinition()}</bpmn:endEvent>${chain('start', 'x')}`,
    );
    expect(await declared(xml)).toEqual({ direction: 'outbound', kind: 'wait', via: 'job' });
  });

  it.each([
    [
      'a ServiceTask',
      around(`<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="t" />')}</bpmn:serviceTask>`),
    ],
    ['a Task', around('<bpmn:task id="x" />')],
    [
      'a timer IntermediateCatchEvent',
      around(`<bpmn:intermediateCatchEvent id="x">${timer('timeDuration', 'PT1M')}</bpmn:intermediateCatchEvent>`),
    ],
    [
      'a signal IntermediateThrowEvent',
      aroundWithRoots(`<bpmn:intermediateThrowEvent id="x">${signalDefinition('s')}</bpmn:intermediateThrowEvent>`),
    ],
    ['a timer StartEvent of an event sub-process', eventSubProcess(timer('timeDuration', 'PT1M'))],
  ])('%s declares nothing: unmarked, it is no touchpoint', async (_, xml) => {
    expect(await declared(xml)).toBeUndefined();
  });

  it('a message StartEvent of the process starts the run: no touchpoint', async () => {
    const xml = withRoots(
      message('m', 'go'),
      `<bpmn:startEvent id="x">${messageDefinition('m')}</bpmn:startEvent><bpmn:endEvent id="end" />${chain('x', 'end')}`,
    );
    expect(await declared(xml)).toBeUndefined();
  });

  it('a message BoundaryEvent lets the run go on without it: no touchpoint', async () => {
    const xml = aroundWithRoots(
      `<bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="t" />')}</bpmn:serviceTask>
      ${boundary('x', 'work', messageDefinition('m'))}<bpmn:endEvent id="cancelled" />${chain('x', 'cancelled')}`,
    ).replace(chain('start', 'x', 'end'), chain('start', 'work', 'end'));
    expect(await declared(xml)).toBeUndefined();
  });
});

describe('thresher:touchpoint marks', () => {
  it('enabled="false" switches a declared touchpoint off', async () => {
    expect(await declared(around(`<bpmn:userTask id="x">${mark('enabled="false"')}</bpmn:userTask>`))).toBeUndefined();
  });

  it('a mark makes an undeclared element an outbound touchpoint, via its job when it runs as one', async () => {
    const service = around(
      `<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="t" /><thresher:touchpoint />')}</bpmn:serviceTask>`,
    );
    expect(await declared(service)).toEqual({ direction: 'outbound', kind: 'wait', via: 'job' });
    expect(await declared(around(`<bpmn:task id="x">${mark('label="Ready?"')}</bpmn:task>`))).toEqual({
      direction: 'outbound',
      kind: 'wait',
      via: null,
    });
  });

  it('a mark gives an undeclared element its direction: internal is a select', async () => {
    const xml = around(`<bpmn:task id="x">${mark('direction="internal"')}</bpmn:task>`);
    expect(await declared(xml)).toEqual({ direction: 'internal', kind: 'select', via: null });
  });

  it("a mark repeating its type's own direction is accepted", async () => {
    const xml = around(`<bpmn:userTask id="x">${mark('direction="internal" label="Approve"')}</bpmn:userTask>`);
    expect(nodeOf(await compile(xml), 'x').touchpoint).toEqual({ direction: 'internal', label: 'Approve' });
  });

  it('the mark is carried into the IR, an empty one as {}', async () => {
    const xml = around(
      `<bpmn:task id="x">${mark('enabled="true" label=" Ready? " description="The team is ready." direction="inbound"')}</bpmn:task>`,
    );
    expect(nodeOf(await compile(xml), 'x').touchpoint).toEqual({
      enabled: true,
      label: 'Ready?',
      description: 'The team is ready.',
      direction: 'inbound',
    });
    expect(nodeOf(await compile(around(`<bpmn:task id="x">${mark()}</bpmn:task>`)), 'x').touchpoint).toEqual({});
  });

  it('a sub-process can be marked', async () => {
    const xml = around(
      `<bpmn:subProcess id="x">${mark('label="Phase"')}<bpmn:startEvent id="s" /><bpmn:endEvent id="e" />${chain('s', 'e')}</bpmn:subProcess>`,
    );
    expect(await declared(xml)).toEqual({ direction: 'outbound', kind: 'wait', via: null });
  });
});

describe('thresher:touchpoint marks the compiler refuses, naming the element', () => {
  it.each([
    ['enabled="false" with a label', 'enabled="false" label="x"', /enabled="false" switches the touchpoint off/],
    [
      'enabled="false" with a description',
      'enabled="false" description="x"',
      /takes no label, description or direction/,
    ],
    [
      'enabled="false" with a direction',
      'enabled="false" direction="outbound"',
      /takes no label, description or direction/,
    ],
    [
      'a direction other than its type declares',
      'direction="outbound"',
      /its type is internal, which a mark cannot change/,
    ],
    [
      'a direction that is none of the three',
      'direction="sideways"',
      /direction="sideways" is not inbound, outbound or internal/,
    ],
    ['an enabled that is neither true nor false', 'enabled="no"', /enabled="no" is not "true" or "false"/],
  ])('refuses %s', async (_, attributes, message) => {
    const issues = await issuesOf(around(`<bpmn:userTask id="x">${mark(attributes)}</bpmn:userTask>`));
    expect(issues).toEqual([
      expect.objectContaining({
        elementId: 'x',
        elementType: 'bpmn:UserTask',
        message: expect.stringMatching(message),
      }),
    ]);
  });

  it('refuses two marks on one element', async () => {
    const issues = await issuesOf(
      around(`<bpmn:task id="x">${ext('<thresher:touchpoint /><thresher:touchpoint />')}</bpmn:task>`),
    );
    expect(issues).toEqual([
      expect.objectContaining({ elementId: 'x', message: 'thresher:Touchpoint is given more than once' }),
    ]);
  });

  it('refuses a mark on the process: it marks flow nodes', async () => {
    const xml = bpmn(`${mark()}<bpmn:startEvent id="start" />`);
    const [issue] = await issuesOf(xml);
    expect(issue).toMatchObject({ elementId: 'p', message: expect.stringMatching(/a touchpoint marks a flow node/) });
  });
});

describe('the IR of unmarked models', () => {
  it('an unmarked element has no touchpoint key', async () => {
    expect(nodeOf(await compile(around('<bpmn:userTask id="x" />')), 'x')).not.toHaveProperty('touchpoint');
  });

  it("an element's first documentation is in the IR, trimmed, and only when there is some", async () => {
    const documented = around(
      '<bpmn:task id="x"><bpmn:documentation>\n  Checks the order.\n</bpmn:documentation><bpmn:documentation>Second</bpmn:documentation></bpmn:task>',
    );
    expect(nodeOf(await compile(documented), 'x').documentation).toBe('Checks the order.');
    expect(nodeOf(await compile(around('<bpmn:task id="x" />')), 'x')).not.toHaveProperty('documentation');
    const blank = around('<bpmn:task id="x"><bpmn:documentation>  </bpmn:documentation></bpmn:task>');
    expect(nodeOf(await compile(blank), 'x')).not.toHaveProperty('documentation');
  });

  it('documentation leaves the digest as it was; a mark moves it', async () => {
    const { digest } = await compile(around('<bpmn:task id="x" />'));
    const documented = around('<bpmn:task id="x"><bpmn:documentation>Why</bpmn:documentation></bpmn:task>');
    expect((await compile(documented)).digest).toBe(digest);
    expect((await compile(around(`<bpmn:task id="x">${mark()}</bpmn:task>`))).digest).not.toBe(digest);
  });
});
