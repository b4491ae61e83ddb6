import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { compile, type Node, type ProcessDef } from '../src/model/index.js';
import { around, bpmn, chain, definitions, error, ext, process, withRoots } from './fixtures/bpmn/xml.js';

/** `zeebe:executionListeners` holding one `zeebe:executionListener` per `[eventType, type, extra attributes?]`. */
function listeners(...items: [string, string, string?][]): string {
  const each = items.map(
    ([event, type, extra = '']) => `<zeebe:executionListener eventType="${event}" type="${type}" ${extra} />`,
  );
  return `<zeebe:executionListeners>${each.join('')}</zeebe:executionListeners>`;
}

async function compiled(xml: string): Promise<ProcessDef> {
  const model = await compile(xml);
  return [...model.processes.values()][0]!;
}

async function node(xml: string, id = 'x'): Promise<Node> {
  return (await compiled(xml)).nodes.get(id)!;
}

/** The messages of the issues a refused model carries. */
async function refusals(xml: string): Promise<{ elementId: string | null; message: string }[]> {
  const thrown = await compile(xml).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(thrown).toBeInstanceOf(ModelError);
  return (thrown as ModelError).issues.map(({ elementId, message }) => ({ elementId, message }));
}

describe('zeebe:executionListeners compile', () => {
  it('ServiceTask#listeners should hold start and end listeners apart, each list in model order', async () => {
    // given a task with two start listeners and one end listener, interleaved in the XML
    const xml = around(
      `<bpmn:serviceTask id="x">${ext(
        `<zeebe:taskDefinition type="work" />${listeners(['start', 'audit'], ['end', 'close', 'retries="5"'], ['start', 'prepare'])}`,
      )}</bpmn:serviceTask>`,
    );

    // when it compiles
    const task = await node(xml);

    // then each event keeps its listeners in the order written, with their job values
    expect(task.listeners).toEqual({
      start: [
        { taskType: 'audit', retries: undefined },
        { taskType: 'prepare', retries: undefined },
      ],
      end: [{ taskType: 'close', retries: 5 }],
    });
  });

  it('ExecutionListener#type and #retries should follow the value rule of zeebe:taskDefinition', async () => {
    // given a listener whose type and retries are expressions, and one whose retries are no count
    const xml = around(
      `<bpmn:task id="x">${ext(listeners(['start', '=kind + &quot;-audit&quot;', 'retries="=tries"'], ['end', 'close', 'retries="many"']))}</bpmn:task>`,
    );

    // when it compiles
    const task = await node(xml);

    // then the expressions are kept for the job's creation, and the bad count is evaluated then, as Zeebe does
    expect(task.listeners?.start?.[0]).toMatchObject({
      taskType: '=kind + "-audit"',
      typeExpression: { source: 'kind + "-audit"' },
      retriesExpression: { source: 'tries' },
    });
    expect(task.listeners?.end?.[0]).toMatchObject({ taskType: 'close', retriesExpression: { source: '"many"' } });
  });

  it('ExecutionListener#headers should keep the listener’s own task headers', async () => {
    const xml = around(
      `<bpmn:task id="x">${ext(
        '<zeebe:executionListeners><zeebe:executionListener eventType="end" type="close"><zeebe:taskHeaders><zeebe:header key="level" value="info" /></zeebe:taskHeaders></zeebe:executionListener></zeebe:executionListeners>',
      )}</bpmn:task>`,
    );
    expect((await node(xml)).listeners?.end).toEqual([
      { taskType: 'close', retries: undefined, headers: { level: 'info' } },
    ]);
  });

  it('Process#listeners should hold the process’s own listeners', async () => {
    const xml = definitions(
      process(
        `${ext(listeners(['start', 'opened'], ['end', 'closed']))}<bpmn:startEvent id="s" /><bpmn:endEvent id="e" />${chain('s', 'e')}`,
      ),
    );
    expect((await compiled(xml)).listeners).toEqual({
      start: [{ taskType: 'opened', retries: undefined }],
      end: [{ taskType: 'closed', retries: undefined }],
    });
  });

  it('should leave the listeners key out of an element and a process that have none, so their IR and digest stay', async () => {
    const xml = around('<bpmn:task id="x" />');
    const process = await compiled(xml);
    expect(process).not.toHaveProperty('listeners');
    for (const each of process.nodes.values()) expect(each).not.toHaveProperty('listeners');
  });

  it('should change the digest when a listener is added', async () => {
    const plain = await compile(around('<bpmn:task id="x" />'));
    const listened = await compile(around(`<bpmn:task id="x">${ext(listeners(['start', 'audit']))}</bpmn:task>`));
    expect(listened.digest).not.toBe(plain.digest);
  });

  it.each([
    [
      'a sub-process',
      `<bpmn:subProcess id="x">${ext(listeners(['start', 'a'], ['end', 'b']))}<bpmn:startEvent id="in" /></bpmn:subProcess>`,
    ],
    [
      'a call activity',
      `<bpmn:callActivity id="x">${ext(`<zeebe:calledElement processId="child" />${listeners(['start', 'a'], ['end', 'b'])}`)}</bpmn:callActivity>`,
    ],
    ['a user task', `<bpmn:userTask id="x">${ext(listeners(['start', 'a'], ['end', 'b']))}</bpmn:userTask>`],
    [
      'a script task',
      `<bpmn:scriptTask id="x">${ext(`<zeebe:script expression="=1" resultVariable="r" />${listeners(['start', 'a'], ['end', 'b'])}`)}</bpmn:scriptTask>`,
    ],
    ['a manual task', `<bpmn:manualTask id="x">${ext(listeners(['start', 'a'], ['end', 'b']))}</bpmn:manualTask>`],
    ['an exclusive gateway', `<bpmn:exclusiveGateway id="x">${ext(listeners(['start', 'a']))}</bpmn:exclusiveGateway>`],
    ['a parallel gateway', `<bpmn:parallelGateway id="x">${ext(listeners(['start', 'a']))}</bpmn:parallelGateway>`],
    [
      'an intermediate throw event',
      `<bpmn:intermediateThrowEvent id="x">${ext(listeners(['start', 'a'], ['end', 'b']))}</bpmn:intermediateThrowEvent>`,
    ],
    [
      'a timer catch event',
      `<bpmn:intermediateCatchEvent id="x">${ext(listeners(['start', 'a'], ['end', 'b']))}<bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`,
    ],
    [
      'a multi-instance task',
      `<bpmn:task id="x">${ext(listeners(['start', 'a'], ['end', 'b']))}<bpmn:multiInstanceLoopCharacteristics><bpmn:loopCardinality>=2</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics></bpmn:task>`,
    ],
  ])('should compile listeners on %s', async (_, element) => {
    expect((await node(around(element))).listeners).toBeDefined();
  });

  it('should compile end listeners on a start event and on a boundary event', async () => {
    const xml = bpmn(`<bpmn:startEvent id="s">${ext(listeners(['end', 'a']))}</bpmn:startEvent>
      <bpmn:task id="t" />
      <bpmn:boundaryEvent id="b" attachedToRef="t">${ext(listeners(['end', 'c']))}<bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
      <bpmn:endEvent id="e" /><bpmn:endEvent id="e2" />${chain('s', 't', 'e')}${chain('b', 'e2')}`);
    const compiledProcess = await compiled(xml);
    expect(compiledProcess.nodes.get('s')?.listeners).toEqual({ end: [{ taskType: 'a', retries: undefined }] });
    expect(compiledProcess.nodes.get('b')?.listeners).toEqual({ end: [{ taskType: 'c', retries: undefined }] });
  });
});

describe('zeebe:executionListeners refusals, as Zeebe refuses them', () => {
  it('StartEvent should refuse a start listener, naming the start event', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="s">${ext(listeners(['start', 'a']))}</bpmn:startEvent><bpmn:endEvent id="e" />${chain('s', 'e')}`,
    );
    expect(await refusals(xml)).toEqual([
      {
        elementId: 's',
        message: expect.stringMatching(
          /^zeebe:executionListener eventType="start" on bpmn:StartEvent: Zeebe runs no start listeners on start events/,
        ),
      },
    ]);
  });

  it('BoundaryEvent should refuse a start listener, and any listener on a compensation boundary', async () => {
    const timer = `<bpmn:boundaryEvent id="b" attachedToRef="t">${ext(listeners(['start', 'a']))}<bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent><bpmn:endEvent id="e2" />${chain('b', 'e2')}`;
    const compensation = `<bpmn:boundaryEvent id="c" attachedToRef="t">${ext(listeners(['end', 'a']))}<bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
      <bpmn:serviceTask id="undo" isForCompensation="true">${ext('<zeebe:taskDefinition type="undo" />')}</bpmn:serviceTask>
      <bpmn:association id="as" associationDirection="One" sourceRef="c" targetRef="undo" />`;
    const xml = bpmn(
      `<bpmn:startEvent id="s" /><bpmn:task id="t" /><bpmn:endEvent id="e" />${chain('s', 't', 'e')}${timer}${compensation}`,
    );
    expect(await refusals(xml)).toEqual([
      {
        elementId: 'b',
        message: expect.stringMatching(
          /eventType="start" on bpmn:BoundaryEvent: Zeebe runs no start listeners on boundary events/,
        ),
      },
      {
        elementId: 'c',
        message: expect.stringMatching(
          /eventType="end" on bpmn:BoundaryEvent: Zeebe runs no listeners on compensation boundary events/,
        ),
      },
    ]);
  });

  it('EndEvent should refuse an end listener on an error end event, and take a start listener there', async () => {
    const xml = withRoots(
      error('err', 'E1'),
      `<bpmn:startEvent id="s" /><bpmn:endEvent id="e">${ext(listeners(['start', 'a'], ['end', 'b']))}<bpmn:errorEventDefinition errorRef="err" /></bpmn:endEvent>${chain('s', 'e')}`,
    );
    expect(await refusals(xml)).toEqual([
      {
        elementId: 'e',
        message: expect.stringMatching(
          /eventType="end" on bpmn:EndEvent: Zeebe runs no end listeners on error end events/,
        ),
      },
    ]);
  });

  it.each([['exclusiveGateway'], ['parallelGateway'], ['inclusiveGateway'], ['eventBasedGateway']])(
    '%s should refuse an end listener',
    async (type) => {
      const target =
        type === 'eventBasedGateway'
          ? '<bpmn:intermediateCatchEvent id="t"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>'
          : '<bpmn:task id="t" />';
      const xml = bpmn(
        `<bpmn:startEvent id="s" /><bpmn:${type} id="g">${ext(listeners(['end', 'a']))}</bpmn:${type}>${target}<bpmn:endEvent id="e" />${chain('s', 'g', 't', 'e')}`,
      );
      expect((await refusals(xml))[0]).toEqual({
        elementId: 'g',
        message: expect.stringMatching(/eventType="end" on bpmn:\w+Gateway: Zeebe runs no end listeners on gateways/),
      });
    },
  );

  it('should refuse two listeners with the same event type and type on one element, naming the pair', async () => {
    const xml = around(
      `<bpmn:task id="x">${ext(listeners(['start', 'audit'], ['end', 'audit'], ['start', 'audit']))}</bpmn:task>`,
    );
    expect(await refusals(xml)).toEqual([
      {
        elementId: 'x',
        message: expect.stringMatching(/^2 zeebe:executionListener elements with eventType="start" and type="audit"/),
      },
    ]);
  });

  it.each([
    ['no eventType', '<zeebe:executionListener type="a" />', /has no eventType/],
    [
      'an event type Thresher does not run',
      '<zeebe:executionListener eventType="beforeAll" type="a" />',
      /has eventType="beforeAll": Thresher runs start and end listeners/,
    ],
    ['no type', '<zeebe:executionListener eventType="start" />', /eventType="start" has no type/],
    [
      'a type that is not FEEL',
      '<zeebe:executionListener eventType="start" type="=a +" />',
      /zeebe:executionListener type "a \+" is not valid FEEL/,
    ],
  ])('should refuse a listener with %s', async (_, listener, message) => {
    const xml = around(
      `<bpmn:task id="x">${ext(`<zeebe:executionListeners>${listener}</zeebe:executionListeners>`)}</bpmn:task>`,
    );
    expect(await refusals(xml)).toEqual([{ elementId: 'x', message: expect.stringMatching(message) }]);
  });

  it('Transaction should refuse listeners: Zeebe runs no transactions', async () => {
    const xml = around(
      `<bpmn:transaction id="x">${ext(listeners(['start', 'a']))}<bpmn:startEvent id="in" /><bpmn:endEvent id="out" />${chain('in', 'out')}</bpmn:transaction>`,
    );
    expect(await refusals(xml)).toEqual([
      {
        elementId: 'x',
        message: expect.stringMatching(/eventType="start" on bpmn:Transaction: Zeebe runs no transactions/),
      },
    ]);
  });

  it('Process should refuse a start listener beside a timer start event, and an end listener beside a terminate end event', async () => {
    const xml = definitions(
      process(`${ext(listeners(['start', 'a'], ['end', 'b']))}
        <bpmn:startEvent id="s"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:startEvent>
        <bpmn:endEvent id="e"><bpmn:terminateEventDefinition /></bpmn:endEvent>${chain('s', 'e')}`),
    );
    expect(await refusals(xml)).toEqual([
      {
        elementId: 'p',
        message: expect.stringMatching(
          /eventType="start" on a process with the timer start event "s" is not supported yet/,
        ),
      },
      {
        elementId: 'p',
        message: expect.stringMatching(
          /eventType="end" on a process with the terminate end event "e" is not supported yet/,
        ),
      },
    ]);
  });

  it('MultiInstanceLoopCharacteristics should refuse listeners: they belong on the activity', async () => {
    const xml = around(
      `<bpmn:task id="x"><bpmn:multiInstanceLoopCharacteristics>${ext(listeners(['start', 'a']))}<bpmn:loopCardinality>=2</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics></bpmn:task>`,
    );
    expect(await refusals(xml)).toEqual([
      { elementId: 'x', message: expect.stringMatching(/execution listeners run on a process or a flow node/) },
    ]);
  });

  it('SequenceFlow should still refuse listeners, as Zeebe does', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="s" /><bpmn:endEvent id="e" /><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e">${ext(listeners(['start', 'a']))}</bpmn:sequenceFlow>`,
    );
    expect(await refusals(xml)).toEqual([
      { elementId: 'f', message: expect.stringMatching(/executionListeners on a bpmn:SequenceFlow/) },
    ]);
  });
});
