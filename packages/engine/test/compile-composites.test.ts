/**
 * Composites compiled into the IR: multi-instance (`zeebe:loopCharacteristics`), standard loops and call
 * activities (`zeebe:calledElement`), each shape proven with the runtime's support gate off
 * (`runtimeSupport: false`), each refusal named, and the default `compile` still refusing every one of
 * them as not supported yet — first, in the element's place — until the runtime runs them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ModelError, type ModelIssue } from '../src/common/errors.js';
import {
  type CallActivityNode,
  type CompileOptions,
  compile,
  type Node,
  NodeType,
  type ProcessModel,
  type ServiceTaskNode,
  type SubProcessNode,
} from '../src/model/index.js';
import { around, boundary, chain, definitions, ext, flow, process, timer } from './fixtures/bpmn/xml.js';

const compileIR = (xml: string) => compile(xml, { runtimeSupport: false });

function nodeOf<TNode extends Node = Node>(model: ProcessModel, id = 'x'): TNode {
  const node = [...model.processes.values()][0]?.nodes.get(id);
  if (!node) throw new Error(`no node ${id}`);
  return node as TNode;
}

async function issuesOf(xml: string, options: CompileOptions = { runtimeSupport: false }): Promise<ModelIssue[]> {
  const error = await compile(xml, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModelError);
  return (error as ModelError).issues;
}

const feel = (source: string, elementId = 'x') => ({ source, elementId });

/** A multi-instance `bpmn:<type>` with id `x`: `zeebe:loopCharacteristics` attributes, then extra loop content. */
function multi(type: string, attributes: string, content = '', loopAttributes = '', body = ''): string {
  const zeebe = attributes ? ext(`<zeebe:loopCharacteristics ${attributes} />`) : '';
  return `<bpmn:${type} id="x">${body}<bpmn:multiInstanceLoopCharacteristics${loopAttributes}>${zeebe}${content}</bpmn:multiInstanceLoopCharacteristics></bpmn:${type}>`;
}
const body = (tag: string, text: string) => `<bpmn:${tag} xsi:type="bpmn:tFormalExpression">${text}</bpmn:${tag}>`;
const standard = (attributes: string, content = '') =>
  `<bpmn:task id="x"><bpmn:standardLoopCharacteristics ${attributes}>${content}</bpmn:standardLoopCharacteristics></bpmn:task>`;
const call = (calledElement: string, attributes = '', extra = '') =>
  `<bpmn:callActivity id="x"${attributes}>${ext(`${calledElement}${extra}`)}</bpmn:callActivity>`;
const ITEMS = 'inputCollection="=items" inputElement="item"';

describe('multi-instance compiles into the IR', () => {
  it('a parallel multi-instance service task: one body per item, outputs gathered, the task otherwise unchanged', async () => {
    const task = multi('serviceTask', `${ITEMS} outputCollection="results" outputElement="=result"`).replace(
      '<bpmn:multiInstance',
      `${ext('<zeebe:taskDefinition type="charge" />')}<bpmn:multiInstance`,
    );
    const node = nodeOf<ServiceTaskNode>(await compileIR(around(task)));
    expect(node).toMatchObject({ type: NodeType.ServiceTask, taskType: 'charge' });
    expect(node.loop).toEqual({
      kind: 'multiInstance',
      sequential: false,
      inputCollection: feel('items'),
      inputElement: 'item',
      cardinality: null,
      outputCollection: 'results',
      outputElement: feel('result'),
      completionCondition: null,
    });
  });

  it('a sequential multi-instance user task with a completion condition', async () => {
    const task = multi('userTask', ITEMS, body('completionCondition', '=approved'), ' isSequential="true"');
    expect(nodeOf(await compileIR(around(task))).loop).toMatchObject({
      kind: 'multiInstance',
      sequential: true,
      inputCollection: feel('items'),
      completionCondition: feel('approved'),
    });
  });

  it('a multi-instance sub-process keeps its loop and its children', async () => {
    const sub = multi('subProcess', ITEMS, '', '', '<bpmn:startEvent id="s" /><bpmn:endEvent id="e" />').replace(
      '</bpmn:subProcess>',
      `${flow('fs', 's', 'e')}</bpmn:subProcess>`,
    );
    const model = await compileIR(around(sub));
    expect(nodeOf<SubProcessNode>(model)).toMatchObject({ type: NodeType.SubProcess, startNodes: ['s'] });
    expect(nodeOf(model).loop).toMatchObject({ kind: 'multiInstance', inputElement: 'item' });
    expect(nodeOf(model, 's')).toMatchObject({ container: 'x' });
  });

  it('a multi-instance call activity', async () => {
    const activity = multi('callActivity', ITEMS).replace(
      '<bpmn:multiInstance',
      `${ext('<zeebe:calledElement processId="child" />')}<bpmn:multiInstance`,
    );
    const node = nodeOf<CallActivityNode>(await compileIR(around(activity)));
    expect(node).toMatchObject({ type: NodeType.CallActivity, calledElement: feel('"child"') });
    expect(node.loop).toMatchObject({ kind: 'multiInstance', inputCollection: feel('items') });
  });

  it.each([
    ['a plain integer is a FEEL number', '3', feel('3')],
    ['an "=" expression is FEEL', '= count + 1', feel('count + 1')],
  ])('loopCardinality: %s, used when there is no inputCollection', async (_, text, expected) => {
    const model = await compileIR(around(multi('task', '', body('loopCardinality', text))));
    expect(nodeOf(model).loop).toMatchObject({ inputCollection: null, inputElement: null, cardinality: expected });
  });

  it('an activity with a boundary event and input mappings can be multi-instance', async () => {
    const io = ext('<zeebe:ioMapping><zeebe:input source="=item.id" target="id" /></zeebe:ioMapping>');
    const xml = around(
      `${multi('task', ITEMS, '', '', io)}${boundary('b', 'x', timer('timeDuration', 'PT1H'))}${flow('fb', 'b', 'end')}`,
    );
    const node = nodeOf(await compileIR(xml));
    expect(node.io.inputs).toEqual([{ source: feel('item.id'), target: 'id' }]);
    expect(node.loop?.kind).toBe('multiInstance');
  });
});

describe('standard loops compile into the IR', () => {
  it('with only a loop condition: testBefore false, no maximum', async () => {
    const model = await compileIR(around(standard('', body('loopCondition', '=count &lt; 3'))));
    expect(nodeOf(model).loop).toEqual({
      kind: 'standardLoop',
      loopCondition: feel('count < 3'),
      testBefore: false,
      loopMaximum: null,
    });
  });

  it('testBefore and loopMaximum as given; a maximum alone is enough', async () => {
    const model = await compileIR(around(standard('testBefore="true" loopMaximum="5"')));
    expect(nodeOf(model).loop).toEqual({ kind: 'standardLoop', loopCondition: null, testBefore: true, loopMaximum: 5 });
  });
});

describe('call activities compile into the IR', () => {
  it('a static processId is a FEEL string; latest binding and both propagations by default; io mappings apply', async () => {
    const io =
      '<zeebe:ioMapping><zeebe:input source="=a" target="b" /><zeebe:output source="=c" target="d" /></zeebe:ioMapping>';
    const model = await compileIR(around(call('<zeebe:calledElement processId="child" />', '', io)));
    expect(nodeOf(model)).toEqual({
      id: 'x',
      name: null,
      type: NodeType.CallActivity,
      container: 'p',
      incoming: ['f_start_x'],
      outgoing: ['f_x_end'],
      io: { inputs: [{ source: feel('a'), target: 'b' }], outputs: [{ source: feel('c'), target: 'd' }] },
      calledElement: feel('"child"'),
      binding: { kind: 'latest' },
      propagateAllChildVariables: true,
      propagateAllParentVariables: true,
    });
    expect(model.warnings).toEqual([]);
  });

  const shapes: Record<string, [string, Partial<CallActivityNode>]> = {
    'an "=" processId and the deployment binding': [
      'processId="=kind + &quot;-flow&quot;" bindingType="deployment"',
      { calledElement: feel('kind + "-flow"'), binding: { kind: 'deployment' } },
    ],
    'a version tag binding': [
      'processId="c" bindingType="versionTag" versionTag="v2"',
      { binding: { kind: 'versionTag', versionTag: 'v2' } },
    ],
    'propagation switched off both ways': [
      'processId="c" propagateAllChildVariables="false" propagateAllParentVariables="false"',
      { propagateAllChildVariables: false, propagateAllParentVariables: false },
    ],
  };
  it.each(Object.entries(shapes))('%s', async (_, [attributes, expected]) => {
    const model = await compileIR(around(call(`<zeebe:calledElement ${attributes} />`)));
    expect(nodeOf(model)).toMatchObject(expected);
  });

  const warned: Record<string, [string, RegExp]> = {
    'businessId (Camunda 8.10) is warned about, not dropped': ['businessId="=id"', /businessId "=id" is ignored/],
    'a versionTag without bindingType="versionTag"': ['versionTag="v2"', /"v2" is ignored: bindingType is "latest"/],
    'processIdExpression beside a processId': ['processIdExpression="k"', /processIdExpression is ignored/],
  };
  it.each(Object.entries(warned))('%s', async (_, [attributes, message]) => {
    const model = await compileIR(around(call(`<zeebe:calledElement processId="c" ${attributes} />`)));
    expect(model.warnings).toEqual([{ elementId: 'x', message: expect.stringMatching(message) }]);
  });

  it('BPMN calledElement beside zeebe:calledElement: silent when they agree, a warning when they differ', async () => {
    const same = await compileIR(around(call('<zeebe:calledElement processId="c" />', ' calledElement="c"')));
    expect(same.warnings).toEqual([]);
    const other = await compileIR(around(call('<zeebe:calledElement processId="c" />', ' calledElement="d"')));
    expect(other.warnings).toEqual([
      {
        elementId: 'x',
        message: expect.stringMatching(/^calledElement="d" \(BPMN's attribute\) is ignored: .*processId "c"/),
      },
    ]);
  });
});

describe('composites that are wrong are refused, naming the activity', () => {
  const mi = (attributes: string, content = '') => around(multi('task', attributes, content));
  const card = (text: string) => body('loopCardinality', text);
  const done = (text: string) => body('completionCondition', text);
  const called = (attributes: string) => around(call(`<zeebe:calledElement ${attributes} />`));
  const groovy = done('done').replace('tFormalExpression"', 'tFormalExpression" language="groovy"');
  const refused: Record<string, [string, RegExp]> = {
    'multi-instance with neither inputCollection nor loopCardinality': [mi(''), /needs a .* inputCollection .* or a/],
    'multi-instance with both inputCollection and loopCardinality': [mi(ITEMS, card('3')), /has both .*: give one/],
    'inputElement without inputCollection': [mi('inputElement="i"', card('3')), /"i" needs an inputCollection/],
    'outputCollection without outputElement': [mi(`${ITEMS} outputCollection="r"`), /"r" needs an outputElement/],
    'outputElement without outputCollection': [mi(`${ITEMS} outputElement="=v"`), /"=v" needs an outputCollection/],
    'a static inputCollection': [mi('inputCollection="items"'), /inputCollection "items" is a static .* "=items"/],
    'a static outputElement': [mi(`${ITEMS} outputCollection="r" outputElement="v"`), /"v" is a static .* "=v"/],
    'an expression as inputElement': [mi('inputCollection="=a" inputElement="=i"'), /"=i" is a variable name.*="i"/],
    'a static completionCondition': [mi(ITEMS, done('ok')), /completionCondition "ok" is a static .* "=ok"/],
    'a JUEL completionCondition': [mi(ITEMS, done(`$\{ok}`)), /completionCondition "\$\{ok\}" is JUEL/],
    'a completionCondition in another language': [mi(ITEMS, groovy), /language "groovy" is not supported/],
    'a loopCardinality that is not a count': [mi('', card('-1')), /"-1" is neither a non-negative integer nor/],
    "BPMN's data inputs": [mi('', `<bpmn:inputDataItem id="d" />${card('3')}`), /use .* inputElement/],
    'a behavior other than All': [around(multi('task', ITEMS, '', ' behavior="One"')), /behavior="One" .* not sup/],
    'another Zeebe extension on the loop': [
      mi(ITEMS).replace('</bpmn:extensionElements>', '<zeebe:taskDefinition type="a" /></bpmn:extensionElements>'),
      /^zeebe:taskDefinition on bpmn:MultiInstanceLoopCharacteristics is not supported yet$/,
    ],
    'a static loopCondition': [around(standard('', body('loopCondition', 'm'))), /loopCondition "m" is a static/],
    'a standard loop that would never end': [around(standard('testBefore="true"')), /would repeat forever/],
    'a call activity without zeebe:calledElement': [
      around('<bpmn:callActivity id="x" />'),
      /^bpmn:CallActivity needs a zeebe:calledElement processId: write <zeebe:calledElement processId="/,
    ],
    "BPMN's calledElement attribute alone": [
      around('<bpmn:callActivity id="x" calledElement="c" />'),
      /^calledElement="c" is BPMN's attribute, .* write <zeebe:calledElement processId="c" \/>/,
    ],
    'zeebe:calledElement without a processId': [called(''), /needs a processId: write processId="child-process"/],
    'processIdExpression alone': [called('processIdExpression="k"'), /not read by Zeebe: write processId="=k"/],
    'bindingType versionTag without a versionTag': [called('processId="c" bindingType="versionTag"'), /needs a vers/],
    'an unknown bindingType': [called('processId="c" bindingType="new"'), /"new" is not one of "latest", "depl/],
    'a processId expression that does not parse': [called('processId="=a +"'), /processId "a \+" is not valid FEEL/],
  };
  it.each(Object.entries(refused))('%s', async (_, [xml, message]) => {
    const issues = await issuesOf(xml);
    expect(issues).toEqual([expect.objectContaining({ elementId: 'x', message: expect.stringMatching(message) })]);
  });

  it.each(['2.5', '-1', 'many'])('loopMaximum="%s" is refused as written (not truncated)', async (value) => {
    expect(await issuesOf(around(standard(`loopMaximum="${value}"`)))).toEqual([
      expect.objectContaining({ elementId: 'x', message: `loopMaximum="${value}" is not a non-negative integer` }),
    ]);
  });

  it('an event sub-process cannot loop', async () => {
    const esp = `<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:multiInstanceLoopCharacteristics />
      <bpmn:startEvent id="es">${timer('timeDuration', 'PT1H')}</bpmn:startEvent></bpmn:subProcess>`;
    const [issue, ...rest] = await issuesOf(around(`<bpmn:task id="x" />${esp}`));
    expect(issue).toMatchObject({
      elementId: 'esp',
      message: expect.stringMatching(/^an event sub-process cannot loop/),
    });
    expect(rest).toEqual([]);
  });

  it('loop characteristics on an event are not BPMN: refused as unreadable, with the line', async () => {
    const event =
      '<bpmn:intermediateThrowEvent id="x"><bpmn:multiInstanceLoopCharacteristics /></bpmn:intermediateThrowEvent>';
    const [issue] = await issuesOf(around(event));
    expect(issue?.message).toMatch(/unrecognized element <bpmn:multiInstanceLoopCharacteristics>/);
    expect(issue?.line).toEqual(expect.any(Number));
  });
});

describe('the default compile runs loops and call activities', () => {
  const CALL = call('<zeebe:calledElement processId="c" />');

  it.each([
    ['serviceTask', multi('serviceTask', ITEMS)],
    ['userTask', multi('userTask', ITEMS)],
    ['subProcess', multi('subProcess', ITEMS, '', '', '<bpmn:startEvent />')],
  ])('a multi-instance %s runs: the default compile accepts it', async (_, element) => {
    const xml = around(element.replace('<bpmn:startEvent />', '<bpmn:startEvent id="s" />'));
    expect((await compile(xml)).processes.get('p')?.nodes.get('x')?.loop?.kind).toBe('multiInstance');
  });

  it('a standard loop runs: the default compile accepts it', async () => {
    const xml = around(standard('loopMaximum="3"'));
    expect((await compile(xml)).processes.get('p')?.nodes.get('x')?.loop?.kind).toBe('standardLoop');
  });

  it('a call activity runs: the default compile accepts it, multi-instance too', async () => {
    expect((await compile(around(CALL))).processes.get('p')?.nodes.get('x')?.type).toBe('callActivity');
    const xml = around(multi('callActivity', ITEMS, '', '', ext('<zeebe:calledElement processId="c" />')));
    expect((await compile(xml)).processes.get('p')?.nodes.get('x')?.loop?.kind).toBe('multiInstance');
  });

  it('a call activity without zeebe:calledElement is refused for that alone', async () => {
    const issues = await issuesOf(around('<bpmn:callActivity id="x" calledElement="child" />'), {});
    expect(issues.map((issue) => issue.message)).toEqual([
      expect.stringMatching(/^calledElement="child" is BPMN's attribute/),
    ]);
  });

  it("each refusal takes its element's place in document order", async () => {
    const bad = `<bpmn:scriptTask id="a">${ext('<zeebe:script expression="=1 +" resultVariable="r" />')}</bpmn:scriptTask>`;
    const loop = '<bpmn:callActivity id="b" calledElement="child" />';
    const flows = chain('start', 'b', 'a', 'end');
    const xml = definitions(process(`<bpmn:startEvent id="start" />${loop}${bad}<bpmn:endEvent id="end" />${flows}`));
    expect((await issuesOf(xml, {})).map((issue) => issue.elementId)).toEqual(['b', 'a']);
    const swapped = xml.replace(loop, '').replace('<bpmn:endEvent', `${loop}<bpmn:endEvent`);
    expect((await issuesOf(swapped, {})).map((issue) => issue.elementId)).toEqual(['a', 'b']);
  });

  it('a model without loops compiles to nodes without a loop key (its IR and digest unchanged)', async () => {
    const sample = new URL('../../../fixtures/order-fulfilment/order-fulfilment.bpmn', import.meta.url);
    const model = await compile(readFileSync(sample, 'utf8'));
    const nodes = [...model.processes.values()].flatMap((process) => [...process.nodes.values()]);
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.filter((node) => 'loop' in node)).toEqual([]);
  });

  it('the digest covers the loop and the call', async () => {
    const { digest } = await compileIR(around(multi('task', ITEMS)));
    expect((await compileIR(around(multi('task', ITEMS, '', ' isSequential="true"')))).digest).not.toBe(digest);
    const before = await compileIR(around(CALL));
    expect((await compileIR(around(CALL.replace('"c"', '"d"')))).digest).not.toBe(before.digest);
  });
});
