import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EngineErrorCode, ModelError } from '../src/common/errors.js';
import { compile } from '../src/model/index.js';
import { around, bpmn, chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

const errorFixture = (name: string) => readFileSync(new URL(`./fixtures/bpmn/error/${name}`, import.meta.url), 'utf8');

interface Expected {
  elementId: string | null;
  elementType: string | null;
  message?: RegExp;
  line?: number;
}

/** Compiles `xml`, expecting a ModelError whose first issue names `expected`. */
async function refuse(xml: unknown, expected: Expected): Promise<ModelError> {
  const error = await compile(xml as string).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModelError);
  const modelError = error as ModelError;
  expect(modelError.code).toBe(EngineErrorCode.Model);
  expect(modelError.code).toBe('THRESHER_MODEL');
  expect(ModelError.is(modelError)).toBe(true);
  expect({ elementId: modelError.elementId, elementType: modelError.elementType }).toEqual({
    elementId: expected.elementId,
    elementType: expected.elementType,
  });
  expect(modelError.issues[0]).toMatchObject({ elementId: expected.elementId, elementType: expected.elementType });
  if (expected.message) expect(modelError.issues[0]?.message).toMatch(expected.message);
  if (expected.line !== undefined) expect(modelError.line).toBe(expected.line);
  return modelError;
}

describe('compile refuses unreadable input', () => {
  it('refuses malformed XML, with the line', async () => {
    await refuse(errorFixture('malformed.bpmn'), {
      elementId: null,
      elementType: null,
      message: /^malformed XML at <\/bpmn:tsak>: closing tag mismatch$/,
      line: 5,
    });
  });

  it('refuses a document that is not BPMN', async () => {
    const error = await refuse('<?xml version="1.0"?>\n<html><body /></html>', {
      elementId: null,
      elementType: 'html',
      message: /^the root element <html> is not BPMN definitions/,
    });
    expect(error.line).toBe(2);
  });

  it.each([
    ['an empty string', ''],
    ['plain text', 'hello'],
    ['binary junk', '\u0000\u0001<\u0002>'],
    ['a non-string', 42],
  ])('refuses %s without crashing', async (_, input) => {
    await expect(compile(input as string)).rejects.toBeInstanceOf(ModelError);
  });

  it('never throws anything but a ModelError on a damaged model', async () => {
    const sample = readFileSync(
      new URL('../../../fixtures/order-fulfilment/order-fulfilment.bpmn', import.meta.url),
      'utf8',
    );
    // Deterministic damage: truncations, and a structural character swapped, all through the file.
    const damaged: string[] = [];
    for (let at = 0; at < sample.length; at += 151) {
      damaged.push(sample.slice(0, at));
      damaged.push(`${sample.slice(0, at)}${'<>"=/'[at % 5]}${sample.slice(at + 1)}`);
    }
    for (const xml of damaged) {
      const outcome = await compile(xml).then(
        () => 'compiled',
        (error: unknown) => (error instanceof ModelError ? 'refused' : error),
      );
      expect(['compiled', 'refused']).toContain(outcome);
    }
  });

  it('refuses an element bpmn-moddle does not know, naming it', async () => {
    await refuse(around('<bpmn:task id="x" />\n<bpmn:frobnicator id="odd" />'), {
      elementId: 'odd',
      elementType: 'bpmn:Frobnicator',
      message: /not an element Thresher can read/,
    });
  });

  it('refuses a duplicate id', async () => {
    await refuse(around('<bpmn:task id="x" />\n<bpmn:task id="x" />'), {
      elementId: 'x',
      elementType: 'bpmn:task',
      message: /duplicate id/,
    });
  });
});

describe('compile refuses broken references', () => {
  it('refuses a flow whose target does not exist', async () => {
    await refuse(bpmn(`<bpmn:startEvent id="start" />${flow('f1', 'start', 'nowhere')}`), {
      elementId: 'f1',
      elementType: 'bpmn:SequenceFlow',
      message: /bpmn:targetRef refers to "nowhere"/,
    });
  });

  it('refuses a flow whose source does not exist', async () => {
    await refuse(bpmn(`<bpmn:startEvent id="start" />${flow('f1', 'ghost', 'start')}`), {
      elementId: 'f1',
      elementType: 'bpmn:SequenceFlow',
      message: /bpmn:sourceRef refers to "ghost"/,
    });
  });

  it('refuses a flow without a sourceRef at all', async () => {
    await refuse(bpmn('<bpmn:startEvent id="start" /><bpmn:sequenceFlow id="f1" targetRef="start" />'), {
      elementId: 'f1',
      elementType: 'bpmn:SequenceFlow',
      message: /has no sourceRef/,
    });
  });

  it('refuses a flow between containers', async () => {
    await refuse(errorFixture('flow-across-containers.bpmn'), {
      elementId: 'cross',
      elementType: 'bpmn:SequenceFlow',
      message: /not a flow node in the same container "p"/,
    });
  });

  it('refuses a flow to something that is not a flow node', async () => {
    await refuse(bpmn(`<bpmn:startEvent id="start" /><bpmn:dataObject id="data" />${flow('f1', 'start', 'data')}`), {
      elementId: 'f1',
      elementType: 'bpmn:SequenceFlow',
      message: /"data" \(bpmn:DataObject\)/,
    });
  });
});

describe('compile refuses expressions that do not parse', () => {
  it('refuses a condition', async () => {
    await refuse(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 'gw')}${flow('f1', 'gw', 'end', '= total &gt;')}`),
      { elementId: 'f1', elementType: 'bpmn:SequenceFlow', message: /condition "total >" is not valid FEEL/ },
    );
  });

  it('refuses a condition in a language other than FEEL', async () => {
    await refuse(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 'gw')}
        <bpmn:sequenceFlow id="f1" sourceRef="gw" targetRef="end">
          <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression" language="javascript">ok</bpmn:conditionExpression>
        </bpmn:sequenceFlow>`),
      { elementId: 'f1', elementType: 'bpmn:SequenceFlow', message: /language "javascript" is not supported/ },
    );
  });

  it('refuses a script expression', async () => {
    await refuse(
      around(
        `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="= foo(" resultVariable="r" />')}</bpmn:scriptTask>`,
      ),
      { elementId: 'x', elementType: 'bpmn:ScriptTask', message: /zeebe:script expression "foo\(" is not valid FEEL/ },
    );
  });

  it('refuses an IO mapping source', async () => {
    await refuse(
      around(
        `<bpmn:serviceTask id="x">${ext('<zeebe:ioMapping><zeebe:input source="= a +" target="b" /></zeebe:ioMapping>')}</bpmn:serviceTask>`,
      ),
      {
        elementId: 'x',
        elementType: 'bpmn:ServiceTask',
        message: /zeebe:input source for "b" "a \+" is not valid FEEL/,
      },
    );
  });

  it('refuses an IO mapping without a target', async () => {
    await refuse(
      around(
        `<bpmn:task id="x">${ext('<zeebe:ioMapping><zeebe:output source="= a" /></zeebe:ioMapping>')}</bpmn:task>`,
      ),
      { elementId: 'x', elementType: 'bpmn:Task', message: /zeebe:output has no target/ },
    );
  });

  it('refuses an assignee expression', async () => {
    await refuse(
      around(`<bpmn:userTask id="x">${ext('<zeebe:assignmentDefinition assignee="= (" />')}</bpmn:userTask>`),
      { elementId: 'x', elementType: 'bpmn:UserTask', message: /assignee/ },
    );
  });
});

describe('compile refuses gateways Thresher cannot route', () => {
  it('refuses a gateway with no outgoing flow', async () => {
    await refuse(bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" />${flow('f0', 'start', 'gw')}`), {
      elementId: 'gw',
      elementType: 'bpmn:ExclusiveGateway',
      message: /has no outgoing sequence flow/,
    });
  });

  it("refuses a default flow that is not one of the gateway's outgoing flows", async () => {
    await refuse(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" default="f0" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 'gw')}${flow('f1', 'gw', 'end')}`),
      { elementId: 'gw', elementType: 'bpmn:ExclusiveGateway', message: /default flow "f0" is not one of/ },
    );
  });

  it('deploys a default flow with a condition, ignoring the condition with a warning, as Zeebe does', async () => {
    const model = await compile(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:inclusiveGateway id="gw" default="f1" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 'gw')}${flow('f1', 'gw', 'end', '=false')}`),
    );
    expect(model.processes.get('p')!.flows.get('f1')!.condition).toBeNull();
    expect(model.warnings).toEqual([
      { elementId: 'gw', message: expect.stringMatching(/condition "=false" of default flow "f1" is ignored/) },
    ]);
  });

  it('refuses a condition on a flow out of a parallel gateway', async () => {
    await refuse(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:parallelGateway id="gw" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 'gw')}${flow('f1', 'gw', 'end', '= x')}`),
      { elementId: 'f1', elementType: 'bpmn:SequenceFlow', message: /ParallelGateway takes every outgoing flow/ },
    );
  });

  it('refuses a condition on a flow out of a task', async () => {
    await refuse(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:task id="t" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 't')}${flow('f1', 't', 'end', '= x')}`),
      { elementId: 'f1', elementType: 'bpmn:SequenceFlow', message: /conditional flow out of bpmn:Task/ },
    );
  });
});

describe('compile refuses elements Thresher does not run yet', () => {
  const cases: Array<[string, string, string, string, RegExp]> = [
    [
      'a multi-instance task with neither a collection nor a cardinality',
      '<bpmn:serviceTask id="x"><bpmn:multiInstanceLoopCharacteristics /></bpmn:serviceTask>',
      'x',
      'bpmn:ServiceTask',
      /inputCollection|loopCardinality/,
    ],
    [
      'a standard loop that could never end',
      '<bpmn:task id="x"><bpmn:standardLoopCharacteristics /></bpmn:task>',
      'x',
      'bpmn:Task',
      /loopCondition|loopMaximum/,
    ],
    [
      'an empty ad-hoc sub-process',
      '<bpmn:adHocSubProcess id="x" />',
      'x',
      'bpmn:AdHocSubProcess',
      /must have at least one activity/,
    ],
    [
      'a business rule task that neither calls a decision nor makes a job',
      '<bpmn:businessRuleTask id="x" />',
      'x',
      'bpmn:BusinessRuleTask',
      /needs a zeebe:calledDecision .* or a zeebe:taskDefinition/,
    ],
    ['a complex gateway', '<bpmn:complexGateway id="x" />', 'x', 'bpmn:ComplexGateway', /is not supported yet/],
  ];

  it.each(cases)('refuses %s', async (_, element, elementId, elementType, message) => {
    await refuse(around(element), { elementId, elementType, message });
  });

  it('refuses a start event that points at a shared event definition', async () => {
    await refuse(
      definitions(
        `<bpmn:signal id="sig" /><bpmn:signalEventDefinition id="shared" signalRef="sig" />${process(
          '<bpmn:startEvent id="s"><bpmn:eventDefinitionRef>shared</bpmn:eventDefinitionRef></bpmn:startEvent>',
        )}`,
      ),
      { elementId: 's', elementType: 'bpmn:StartEvent', message: /SignalEventDefinition/ },
    );
  });

  it('collects every issue, the first one being the message', async () => {
    const error = await refuse(
      around('<bpmn:task id="x" /><bpmn:businessRuleTask id="rules" /><bpmn:complexGateway id="complex" />'),
      { elementId: 'rules', elementType: 'bpmn:BusinessRuleTask' },
    );
    expect(error.issues.map((issue) => issue.elementId)).toEqual(['rules', 'complex']);
    expect(error.message).toBe(
      'THRESHER_MODEL: bpmn:BusinessRuleTask "rules": bpmn:BusinessRuleTask needs a zeebe:calledDecision (a DMN decision the engine evaluates: <zeebe:calledDecision decisionId="risk" resultVariable="risk" />) or a zeebe:taskDefinition (a job a worker runs) (line 12) (and 1 more)',
    );
  });
});

describe('compile refuses incomplete tasks', () => {
  it('refuses a script task without a result variable', async () => {
    await refuse(around(`<bpmn:scriptTask id="x">${ext('<zeebe:script expression="= 1" />')}</bpmn:scriptTask>`), {
      elementId: 'x',
      elementType: 'bpmn:ScriptTask',
      message: /needs a zeebe:script resultVariable/,
    });
  });

  it('refuses a script task without an expression', async () => {
    await refuse(
      around('<bpmn:scriptTask id="x" scriptFormat="groovy"><bpmn:script>1</bpmn:script></bpmn:scriptTask>'),
      {
        elementId: 'x',
        elementType: 'bpmn:ScriptTask',
        message: /needs a zeebe:script expression \(scriptFormat "groovy" is not FEEL\)/,
      },
    );
  });

  it.each(['-1', 'two', '1.5', ''])(
    'deploys static retries "%s" to evaluate them when the job is created, as Zeebe does',
    async (retries) => {
      const model = await compile(
        around(
          `<bpmn:serviceTask id="x">${ext(`<zeebe:taskDefinition type="t" retries="${retries}" />`)}</bpmn:serviceTask>`,
        ),
      );
      const node = model.processes.get('p')!.nodes.get('x') as {
        retries?: number;
        retriesExpression?: { source: string };
      };
      expect(node.retries).toBeUndefined();
      expect(node.retriesExpression?.source).toBe(JSON.stringify(retries));
    },
  );

  it('refuses a task type expression that is not valid FEEL', async () => {
    await refuse(
      around(`<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="= kind +" />')}</bpmn:serviceTask>`),
      {
        elementId: 'x',
        elementType: 'bpmn:ServiceTask',
        message: /^zeebe:taskDefinition type "kind \+" is not valid FEEL/,
      },
    );
  });
});

describe('compile refuses processes without a way in', () => {
  it('refuses a sub-process without a start event', async () => {
    await refuse(around('<bpmn:subProcess id="x"><bpmn:task id="inside" /></bpmn:subProcess>'), {
      elementId: 'x',
      elementType: 'bpmn:SubProcess',
      message: /exactly one none start event, found 0/,
    });
  });

  it('refuses a sub-process with two start events', async () => {
    await refuse(
      around('<bpmn:subProcess id="x"><bpmn:startEvent id="a" /><bpmn:startEvent id="b" /></bpmn:subProcess>'),
      { elementId: 'x', elementType: 'bpmn:SubProcess', message: /found 2/ },
    );
  });

  it('refuses a process without a start event', async () => {
    await refuse(bpmn('<bpmn:task id="t" />'), {
      elementId: 'p',
      elementType: 'bpmn:Process',
      message:
        /^the process has no start event: it needs a none start event .* or a message, timer or signal start event$/,
    });
  });

  it('refuses a start event with incoming flows', async () => {
    await refuse(bpmn(`<bpmn:startEvent id="s" /><bpmn:task id="t" />${chain('s', 't', 's')}`), {
      elementId: 's',
      elementType: 'bpmn:StartEvent',
      message: /cannot have incoming/,
    });
  });

  it('refuses a file whose processes are all non-executable', async () => {
    await refuse(definitions(process('<bpmn:startEvent id="s" />', 'doc', false)), {
      elementId: 'doc',
      elementType: 'bpmn:Process',
      message: /no executable process/,
    });
  });

  it('refuses definitions without any process', async () => {
    await refuse(definitions('<bpmn:message id="m" />'), {
      elementId: 'defs',
      elementType: 'bpmn:Definitions',
      message: /no bpmn:Process/,
    });
  });

  it('refuses sub-processes nested absurdly deep instead of overflowing', async () => {
    const depth = 200;
    let body = '<bpmn:startEvent id="s-bottom" />';
    for (let level = depth; level > 0; level -= 1) {
      body = `<bpmn:startEvent id="s${level}" /><bpmn:subProcess id="sp${level}">${body}</bpmn:subProcess>`;
    }
    const error = await refuse(bpmn(body.replace('<bpmn:startEvent id="s1" />', '<bpmn:startEvent id="start" />')), {
      elementId: 'sp65',
      elementType: 'bpmn:SubProcess',
      message: /nested more than 64 deep/,
    });
    expect(error.issues).toHaveLength(1);
  });
});
