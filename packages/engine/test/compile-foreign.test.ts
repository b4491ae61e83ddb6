import { describe, expect, it } from 'vitest';
import { ModelError, type ModelIssue } from '../src/common/errors.js';
import { isJuel } from '../src/model/foreign.js';
import { compile } from '../src/model/index.js';
import { chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

const CAMUNDA = 'http://camunda.org/schema/1.0/bpmn';
const FLOWABLE = 'http://flowable.org/bpmn';
const ACTIVITI = 'http://activiti.org/bpmn';

/** The three engines' namespaces under their usual prefixes. */
const ENGINES = `xmlns:camunda="${CAMUNDA}" xmlns:flowable="${FLOWABLE}" xmlns:activiti="${ACTIVITI}"`;

/** `definitions()` with extra namespace declarations on the root. */
function declaring(namespaces: string, roots: string): string {
  return definitions(roots).replace('<bpmn:definitions ', `<bpmn:definitions ${namespaces}\n  `);
}

/** One executable process `p` with the engines' namespaces (and `extra`) declared. */
function foreign(body: string, extra = ''): string {
  return declaring(`${ENGINES} ${extra}`, process(body));
}

/** `start` → `element` (id `x`) → `end` in a document declaring exactly `namespaces` beyond the usual ones. */
function aroundIn(namespaces: string, element: string): string {
  const body = `<bpmn:startEvent id="start" />\n${element}\n<bpmn:endEvent id="end" />\n${chain('start', 'x', 'end')}`;
  return declaring(namespaces, process(body));
}

/** `start` → `element` (id `x`) → `end`, with the engines' namespaces (and `extra`) declared. */
function aroundForeign(element: string, extra = ''): string {
  return aroundIn(`${ENGINES} ${extra}`, element);
}

/** A service task Thresher would run as is (so only the foreign content can refuse it). */
function serviceTask(attributes: string, extensions = ''): string {
  const definition = '<zeebe:taskDefinition type="work" />';
  return `<bpmn:serviceTask id="x" ${attributes}>${ext(`${definition}${extensions}`)}</bpmn:serviceTask>`;
}

/** The issues of a model that must be refused. */
async function issuesOf(xml: string): Promise<ModelIssue[]> {
  const error = await compile(xml).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModelError);
  return (error as ModelError).issues;
}

/** The issues of `xml` that name a foreign extension (the other checks' issues left out). */
async function foreignIssuesOf(xml: string): Promise<ModelIssue[]> {
  return (await issuesOf(xml)).filter((issue) => / extension Thresher does not run: /.test(issue.message));
}

/** The warnings of a model that must compile. */
async function warningsOf(xml: string): Promise<{ message: string; elementId: string | null }[]> {
  return [...(await compile(xml)).warnings];
}

function issue(elementId: string, elementType: string, message: RegExp | string) {
  return expect.objectContaining({
    elementId,
    elementType,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });
}

describe('Camunda 7 / Flowable / Activiti service implementations are refused', () => {
  it('a Camunda 7 class service task is refused, naming camunda:class and the fix', async () => {
    const xml = aroundForeign('<bpmn:serviceTask id="x" camunda:class="com.acme.Charge" />');
    expect(await issuesOf(xml)).toEqual([
      {
        elementId: 'x',
        elementType: 'bpmn:ServiceTask',
        message:
          'camunda:class="com.acme.Charge" is a Camunda 7 extension Thresher does not run: give the task a zeebe:taskDefinition type and register a handler for it',
        line: 13,
      },
    ]);
  });

  it.each([
    [`flowable:expression="$\{charge.run(execution)}"`, 'Flowable'],
    [`flowable:delegateExpression="$\{chargeDelegate}"`, 'Flowable'],
    [`camunda:delegateExpression="$\{chargeDelegate}"`, 'Camunda 7'],
    ['activiti:class="org.acme.Charge"', 'Activiti'],
  ])('a service task with %s is refused as a(n) %s extension', async (attribute, engine) => {
    const issues = await issuesOf(aroundForeign(`<bpmn:serviceTask id="x" ${attribute} />`));
    expect(issues).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        `${attribute} is ${engine === 'Activiti' ? 'an' : 'a'} ${engine} extension Thresher does not run: give the task a zeebe:taskDefinition type and register a handler for it`,
      ),
    ]);
  });

  it('a Camunda 7 external task is refused once, naming its topic as the zeebe:taskDefinition type to use', async () => {
    const issues = await issuesOf(
      aroundForeign('<bpmn:serviceTask id="x" camunda:type="external" camunda:topic="charge" />'),
    );
    expect(issues).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        'camunda:type="external" camunda:topic="charge" is a Camunda 7 extension Thresher does not run: an external task: use zeebe:taskDefinition type="charge"',
      ),
    ]);
  });

  it('a Flowable external worker task is refused, naming its topic', async () => {
    const issues = await issuesOf(
      aroundForeign('<bpmn:serviceTask id="x" flowable:type="external-worker" flowable:topic="ship" />'),
    );
    expect(issues).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        /flowable:type="external-worker" flowable:topic="ship" is a Flowable .*zeebe:taskDefinition type="ship"/,
      ),
    ]);
  });

  it('a Flowable built-in mail task is refused, saying Thresher has no such task', async () => {
    const issues = await issuesOf(aroundForeign('<bpmn:serviceTask id="x" flowable:type="mail" />'));
    expect(issues).toEqual([issue('x', 'bpmn:ServiceTask', /built-in "mail" task does not exist in Thresher/)]);
  });

  it('a result variable is refused beside the expression that fills it, each named', async () => {
    const issues = await issuesOf(
      aroundForeign(`<bpmn:serviceTask id="x" flowable:expression="$\{a}" flowable:resultVariable="total" />`),
    );
    expect(issues).toEqual([
      issue('x', 'bpmn:ServiceTask', /^flowable:expression="\$\{a\}" is a Flowable extension/),
      issue(
        'x',
        'bpmn:ServiceTask',
        /^flowable:resultVariable="total" is a Flowable extension .*zeebe:ioMapping output/,
      ),
    ]);
  });

  it('a Camunda connector is refused, with the input/output inside it not reported again', async () => {
    const connector = `<camunda:connector><camunda:connectorId>http-connector</camunda:connectorId>
      <camunda:inputOutput><camunda:inputParameter name="url">https://example.com</camunda:inputParameter></camunda:inputOutput>
    </camunda:connector>`;
    expect(await issuesOf(aroundForeign(serviceTask('', connector)))).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        /^camunda:connector is a Camunda 7 extension Thresher does not run: give the task a zeebe:taskDefinition type/,
      ),
    ]);
  });

  it('Camunda and Flowable field injection is refused, once per engine however many fields there are', async () => {
    const fields =
      '<camunda:field name="url" stringValue="https://x" /><camunda:field name="verb" stringValue="GET" /><flowable:field name="to"><flowable:string>a@b.c</flowable:string></flowable:field>';
    expect(await issuesOf(aroundForeign(serviceTask('', fields)))).toEqual([
      issue('x', 'bpmn:ServiceTask', /^camunda:field is a Camunda 7 extension .*field injection is Java-only/),
      issue('x', 'bpmn:ServiceTask', /^flowable:field is a Flowable extension .*field injection is Java-only/),
    ]);
  });

  it('a business rule task with camunda:decisionRef is refused, pointing to zeebe:calledDecision', async () => {
    const issues = await foreignIssuesOf(
      aroundForeign(
        '<bpmn:businessRuleTask id="x" camunda:decisionRef="risk" camunda:mapDecisionResult="singleEntry" />',
      ),
    );
    expect(issues).toEqual([
      issue('x', 'bpmn:BusinessRuleTask', /^camunda:decisionRef="risk" .*write <zeebe:calledDecision decisionId=/),
      issue('x', 'bpmn:BusinessRuleTask', /^camunda:mapDecisionResult="singleEntry" /),
    ]);
  });

  it('a Camunda external-task error mapping is refused', async () => {
    const mapping = `<camunda:errorEventDefinition id="mapping" errorRef="e" expression="$\{true}" />`;
    expect(await issuesOf(aroundForeign(serviceTask('', mapping)))).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        /^camunda:errorEventDefinition is a Camunda 7 extension .*throw a BPMN error from the job handler/,
      ),
    ]);
  });
});

describe('Camunda 7 / Flowable data handling and listeners are refused', () => {
  it('camunda:inputOutput is refused once, pointing to zeebe:ioMapping; its parameters and script are not repeated', async () => {
    const io = `<camunda:inputOutput>
      <camunda:inputParameter name="a">\${x}</camunda:inputParameter>
      <camunda:inputParameter name="s"><camunda:script scriptFormat="groovy">1 + 1</camunda:script></camunda:inputParameter>
      <camunda:outputParameter name="b">\${y}</camunda:outputParameter>
    </camunda:inputOutput>`;
    expect(await issuesOf(aroundForeign(serviceTask('', io)))).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        'camunda:inputOutput is a Camunda 7 extension Thresher does not run: use zeebe:ioMapping (zeebe:input / zeebe:output)',
      ),
    ]);
  });

  it('a Camunda execution listener is refused once, not again for the camunda:field inside it', async () => {
    const listener =
      '<camunda:executionListener class="com.acme.Audit" event="start"><camunda:field name="level"><camunda:string>info</camunda:string></camunda:field></camunda:executionListener>';
    expect(await issuesOf(aroundForeign(serviceTask('', listener)))).toEqual([
      issue(
        'x',
        'bpmn:ServiceTask',
        'camunda:executionListener is a Camunda 7 extension Thresher does not run: a Java listener does not run in Thresher; write a zeebe:executionListener (a job a handler runs) or model the work as a service task',
      ),
    ]);
  });

  it('a Flowable task listener on a user task is refused', async () => {
    const task = `<bpmn:userTask id="x">${ext('<flowable:taskListener event="create" class="com.acme.Notify" />')}</bpmn:userTask>`;
    expect(await issuesOf(aroundForeign(task))).toEqual([
      issue(
        'x',
        'bpmn:UserTask',
        /^flowable:taskListener is a Flowable extension .*task and event listeners do not run in Thresher/,
      ),
    ]);
  });

  it('a process-level Camunda listener is refused, naming the process', async () => {
    const body = `${ext(`<camunda:executionListener event="end" delegateExpression="$\{audit}" />`)}<bpmn:startEvent id="start" />`;
    expect(await issuesOf(foreign(body))).toEqual([issue('p', 'bpmn:Process', /^camunda:executionListener /)]);
  });

  it('multi-instance camunda:collection / camunda:elementVariable are refused on the activity, pointing to zeebe:loopCharacteristics', async () => {
    const task = serviceTask('').replace(
      '</bpmn:serviceTask>',
      `<bpmn:multiInstanceLoopCharacteristics camunda:collection="$\{items}" camunda:elementVariable="item" /></bpmn:serviceTask>`,
    );
    expect(await foreignIssuesOf(aroundForeign(task))).toEqual([
      issue('x', 'bpmn:ServiceTask', /^camunda:collection="\$\{items\}" .*zeebe:loopCharacteristics inputCollection/),
      issue('x', 'bpmn:ServiceTask', /^camunda:elementVariable="item" .*zeebe:loopCharacteristics inputCollection/),
    ]);
  });

  it('call activity variable passing and version binding (Camunda and Flowable) are refused', async () => {
    const call = `<bpmn:callActivity id="x" calledElement="child" camunda:calledElementBinding="version" camunda:calledElementVersion="3" camunda:variableMappingClass="com.acme.Map">
      ${ext('<zeebe:calledElement processId="child" /><camunda:in source="a" target="a" /><flowable:out source="b" target="b" />')}
    </bpmn:callActivity>`;
    const issues = await foreignIssuesOf(aroundForeign(call));
    expect(issues).toEqual([
      issue('x', 'bpmn:CallActivity', /^camunda:in is a Camunda 7 extension .*propagateAllChildVariables/),
      issue('x', 'bpmn:CallActivity', /^flowable:out is a Flowable extension .*propagateAllChildVariables/),
    ]);
    // The attributes are leftovers beside zeebe:calledElement, which Zeebe runs instead: warned about.
    const bare = call.replace(/<camunda:in [^>]*\/>|<flowable:out [^>]*\/>/g, '');
    expect((await warningsOf(aroundForeign(bare))).map((warning) => warning.message)).toEqual([
      expect.stringMatching(
        /^camunda:calledElementBinding="version" is a Camunda 7 extension Thresher ignores: Zeebe ignores it too/,
      ),
      expect.stringMatching(/^camunda:calledElementVersion="3" .*Zeebe ignores it too/),
      expect.stringMatching(/^camunda:variableMappingClass="com.acme.Map" .*Zeebe ignores it too/),
    ]);
  });

  it.each([
    ['camunda:class="com.acme.Charge"', 'Camunda 7'],
    ['camunda:type="external" camunda:topic="charge"', 'Camunda 7'],
    [`flowable:expression="$\{charge.run(execution)}"`, 'Flowable'],
  ])(
    'a leftover %s on a task migrated to Zeebe (with zeebe:taskDefinition) is warned about, not refused',
    async (attribute, engine) => {
      const xml = aroundForeign(serviceTask(attribute));
      await expect(compile(xml)).resolves.toBeDefined();
      expect((await warningsOf(xml)).map((warning) => warning.message)).toEqual([
        `${attribute} is a ${engine} extension Thresher ignores: Zeebe ignores it too: the element runs from its zeebe: extension that does the same, as Zeebe runs it`,
      ]);
    },
  );

  it('a call activity calling a CMMN case (camunda:caseRef) is refused', async () => {
    const call = `<bpmn:callActivity id="x" camunda:caseRef="claim">${ext('<zeebe:calledElement processId="child" />')}</bpmn:callActivity>`;
    expect(await foreignIssuesOf(aroundForeign(call))).toEqual([
      issue('x', 'bpmn:CallActivity', /^camunda:caseRef="claim" .*CMMN/),
    ]);
  });

  it('a start event form handler class is refused', async () => {
    const xml = foreign(
      `<bpmn:startEvent id="start" camunda:formHandlerClass="com.acme.Form" /><bpmn:endEvent id="end" />${flow('f', 'start', 'end')}`,
    );
    expect(await issuesOf(xml)).toEqual([
      issue('start', 'bpmn:StartEvent', /^camunda:formHandlerClass="com.acme.Form" .*Java form handlers/),
    ]);
  });

  it('a Camunda class on a message event definition is refused, naming the event', async () => {
    const event =
      '<bpmn:intermediateThrowEvent id="x"><bpmn:messageEventDefinition id="md" camunda:class="com.acme.Send" /></bpmn:intermediateThrowEvent>';
    expect(await foreignIssuesOf(aroundForeign(event))).toEqual([
      issue('x', 'bpmn:IntermediateThrowEvent', /^camunda:class="com.acme.Send" /),
    ]);
  });

  it('a listener nested in a descriptive Camunda element is still refused', async () => {
    const nested =
      '<camunda:properties><camunda:executionListener event="start" class="com.acme.A" /></camunda:properties>';
    const xml = aroundForeign(serviceTask('', nested));
    expect(await issuesOf(xml)).toEqual([
      issue('x', 'bpmn:ServiceTask', /^camunda:executionListener is a Camunda 7 extension/),
    ]);
  });

  it.each([
    ['flowable:triggerable', '<bpmn:serviceTask id="x" flowable:triggerable="true" />', /zeebe:taskDefinition type/],
    ['flowable:skipExpression', serviceTask(`flowable:skipExpression="$\{skip}"`), /exclusive gateway/],
    ['flowable:eventType', serviceTask('flowable:eventType="orderShipped"'), /event registry/],
    ['camunda:errorCodeVariable', serviceTask('camunda:errorCodeVariable="code"'), /not stored in a variable/],
    [
      'flowable:collection',
      serviceTask('').replace(
        '</bpmn:serviceTask>',
        '<bpmn:multiInstanceLoopCharacteristics flowable:collection="items" /></bpmn:serviceTask>',
      ),
      /zeebe:loopCharacteristics inputCollection/,
    ],
  ])('%s is refused with what to use instead', async (name, task, advice) => {
    const issues = await foreignIssuesOf(aroundForeign(task));
    expect(issues).toEqual([issue('x', 'bpmn:ServiceTask', new RegExp(`^${name}=.* does not run: `))]);
    expect(issues[0]?.message).toMatch(advice);
  });

  it('a service task inside a sub-process is found and named', async () => {
    const inner = `<bpmn:startEvent id="s2" /><bpmn:serviceTask id="deep" flowable:class="com.acme.Deep" /><bpmn:endEvent id="e2" />${chain('s2', 'deep', 'e2')}`;
    const xml = aroundForeign(`<bpmn:subProcess id="x">${inner}</bpmn:subProcess>`);
    expect(await issuesOf(xml)).toEqual([
      {
        elementId: 'deep',
        elementType: 'bpmn:ServiceTask',
        message: expect.stringMatching(/^flowable:class="com.acme.Deep" is a Flowable extension/),
        line: 13,
      },
    ]);
  });
});

describe('namespaces are matched by URI, not by prefix', () => {
  it('an unusual prefix bound to the Camunda 7 namespace is recognised (c7:class)', async () => {
    const xml = aroundIn(`xmlns:c7="${CAMUNDA}"`, '<bpmn:serviceTask id="x" c7:class="com.acme.Charge" />');
    expect(await issuesOf(xml)).toEqual([
      issue('x', 'bpmn:ServiceTask', /^c7:class="com.acme.Charge" is a Camunda 7 extension/),
    ]);
  });

  it('a prefix declared on the element itself is recognised', async () => {
    const xml = aroundIn('', `<bpmn:serviceTask id="x" xmlns:fl="${FLOWABLE}" fl:delegateExpression="\${d}" />`);
    expect(await issuesOf(xml)).toEqual([
      issue('x', 'bpmn:ServiceTask', /^fl:delegateExpression="\$\{d\}" is a Flowable extension/),
    ]);
  });

  it('a second prefix for the same namespace is reported under the first one (bpmn-moddle renames it)', async () => {
    const xml = aroundIn(
      `xmlns:camunda="${CAMUNDA}" xmlns:c7="${CAMUNDA}"`,
      '<bpmn:serviceTask id="x" c7:class="A" />',
    );
    expect(await issuesOf(xml)).toEqual([
      issue('x', 'bpmn:ServiceTask', /^camunda:class="A" is a Camunda 7 extension/),
    ]);
  });

  it('the camunda prefix bound to the Activiti namespace is reported as Activiti', async () => {
    const xml = aroundIn(`xmlns:camunda="${ACTIVITI}"`, '<bpmn:serviceTask id="x" camunda:class="A" />');
    expect(await issuesOf(xml)).toEqual([
      issue('x', 'bpmn:ServiceTask', /^camunda:class="A" is an Activiti extension/),
    ]);
  });

  it('a prefix bound to the zeebe namespace is left to the zeebe checks', async () => {
    const xml = aroundForeign(
      '<bpmn:task id="x" z:modelerTemplate="t" />',
      'xmlns:z="http://camunda.org/schema/zeebe/1.0"',
    );
    expect((await warningsOf(xml)).filter((warning) => /extension/.test(warning.message))).toEqual([]);
  });
});

describe('descriptive foreign extensions are warned about as ignored', () => {
  it('asyncBefore, assignee and historyTimeToLive compile with a warning each, saying why they do not matter', async () => {
    const xml = foreign(`${ext('')}
      <bpmn:startEvent id="start" camunda:asyncBefore="true" />
      <bpmn:userTask id="x" camunda:assignee="demo" flowable:candidateGroups="managers" />
      <bpmn:endEvent id="end" />${chain('start', 'x', 'end')}`).replace(
      '<bpmn:process id="p"',
      '<bpmn:process id="p" camunda:historyTimeToLive="180"',
    );
    expect(await warningsOf(xml)).toEqual([
      {
        elementId: 'p',
        message:
          'camunda:historyTimeToLive="180" is a Camunda 7 extension Thresher ignores: history is kept by the store, not per process',
      },
      {
        elementId: 'start',
        message:
          'camunda:asyncBefore="true" is a Camunda 7 extension Thresher ignores: Thresher persists every step, so it has no effect',
      },
      {
        elementId: 'x',
        message: expect.stringMatching(/^camunda:assignee="demo" .*ignores: .*zeebe:assignmentDefinition/),
      },
      {
        elementId: 'x',
        message: expect.stringMatching(/^flowable:candidateGroups="managers" .*ignores: .*zeebe:assignmentDefinition/),
      },
    ]);
  });

  it('camunda:properties and camunda:formData warn once each, not per child', async () => {
    const content =
      '<camunda:properties><camunda:property name="a" value="1" /><camunda:property name="b" value="2" /></camunda:properties><camunda:formData><camunda:formField id="amount" type="long" /></camunda:formData><camunda:failedJobRetryTimeCycle>R3/PT5M</camunda:failedJobRetryTimeCycle>';
    expect(await warningsOf(aroundForeign(serviceTask('camunda:jobPriority="5"', content)))).toEqual([
      { elementId: 'x', message: expect.stringMatching(/^camunda:jobPriority="5" .*no job priorities/) },
      { elementId: 'x', message: expect.stringMatching(/^camunda:properties .*use zeebe:properties/) },
      { elementId: 'x', message: expect.stringMatching(/^camunda:formData .*zeebe:formDefinition/) },
      {
        elementId: 'x',
        message: expect.stringMatching(/^camunda:failedJobRetryTimeCycle .*zeebe:taskDefinition retries/),
      },
    ]);
  });

  it('an unlisted Camunda attribute is warned about as ignored', async () => {
    expect(await warningsOf(aroundForeign('<bpmn:task id="x" camunda:somethingNew="1" />'))).toEqual([
      {
        elementId: 'x',
        message:
          'camunda:somethingNew="1" is a Camunda 7 extension Thresher ignores: Thresher does not read it, so it has no effect',
      },
    ]);
  });

  it("another vendor's attributes and elements get one warning per element naming the namespace", async () => {
    const task = `<bpmn:task id="x" vendor:score="3" vendor:owner="ops">${ext('<vendor:anything foo="bar" />')}</bpmn:task>`;
    expect(await warningsOf(aroundForeign(task, 'xmlns:vendor="http://example.com/vendor"'))).toEqual([
      {
        elementId: 'x',
        message:
          'vendor:score, vendor:owner, vendor:anything (namespace "http://example.com/vendor") ignored: Thresher does not read this vendor extension',
      },
    ]);
  });

  it('bpmn.io colours and Camunda Modeler metadata are silent', async () => {
    const di = `<bpmndi:BPMNDiagram id="d"><bpmndi:BPMNPlane id="plane" bpmnElement="p">
      <bpmndi:BPMNShape id="x_di" bpmnElement="x" bioc:stroke="#000" bioc:fill="#fff" color:background-color="#fff" color:border-color="#000"><dc:Bounds x="0" y="0" width="100" height="80" /></bpmndi:BPMNShape>
    </bpmndi:BPMNPlane></bpmndi:BPMNDiagram>`;
    const namespaces = `xmlns:bioc="http://bpmn.io/schema/bpmn/biocolor/1.0" xmlns:color="http://www.omg.org/spec/BPMN/non-normative/color/1.0"
      xmlns:modeler="http://camunda.org/schema/modeler/1.0" modeler:executionPlatform="Camunda Cloud" modeler:executionPlatformVersion="8.6.0"`;
    const body = `<bpmn:startEvent id="start" /><bpmn:task id="x" /><bpmn:endEvent id="end" />${chain('start', 'x', 'end')}`;
    const xml = declaring(`${ENGINES} ${namespaces}`, `${process(body)}${di}`);
    expect(await warningsOf(xml)).toEqual([]);
  });

  it('a model with no foreign extensions gets no foreign warnings', async () => {
    expect(await warningsOf(aroundForeign(serviceTask('name="Charge"')))).toEqual([]);
  });
});

describe('JUEL conditions', () => {
  const gateway = (condition: string) =>
    foreign(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" default="f2" />
<bpmn:endEvent id="a" /><bpmn:endEvent id="b" />
${flow('f0', 'start', 'gw')}
${flow('f1', 'gw', 'a', condition)}
${flow('f2', 'gw', 'b')}`);

  it('a JUEL condition is refused once, naming the flow and its line, with the FEEL to write instead', async () => {
    expect(await issuesOf(gateway(`$\{a == 1}`))).toEqual([
      {
        elementId: 'f1',
        elementType: 'bpmn:SequenceFlow',
        message: `condition "$\{a == 1}" is JUEL (Camunda 7 / Flowable): Thresher conditions are FEEL, e.g. "=a = 1"`,
        line: 15,
      },
    ]);
  });

  it.each([
    ['#{approved}', '=approved'],
    [`$\{status eq 'ok' &amp;&amp; !cancelled}`, '=status = "ok" and not(cancelled)'],
  ])('the JUEL condition %s is refused, suggesting %s', async (condition, feel) => {
    const issues = await issuesOf(gateway(condition));
    expect(issues).toEqual([
      issue('f1', 'bpmn:SequenceFlow', new RegExp(`is JUEL .*e\\.g\\. "${feel.replace(/[()]/g, '\\$&')}"$`)),
    ]);
  });

  it('a JUEL condition with no simple FEEL reading still names the flow and the leading "="', async () => {
    expect(await issuesOf(gateway(`$\{execution.getVariable("a")}`))).toEqual([
      issue(
        'f1',
        'bpmn:SequenceFlow',
        `condition "$\{execution.getVariable("a")}" is JUEL (Camunda 7 / Flowable): Thresher conditions are FEEL, written with a leading "="`,
      ),
    ]);
  });

  it('isJuel recognises JUEL (dollar- and hash-brace expressions) but not FEEL', () => {
    expect([` $\{a} `, '#{b}', `$\{a} && $\{b}`].map(isJuel)).toEqual([true, true, true]);
    expect(['=a = 1', 'a > 1', '{a: 1}', `"$\{a}"`, '$a'].map(isJuel)).toEqual([false, false, false, false, false]);
  });
});

describe('what other checks already refuse is not reported twice', () => {
  it('a groovy script task with camunda:resultVariable gets only the script task issues', async () => {
    const task =
      '<bpmn:scriptTask id="x" scriptFormat="groovy" camunda:resultVariable="r"><bpmn:script>1 + 1</bpmn:script></bpmn:scriptTask>';
    const issues = await issuesOf(aroundForeign(task));
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.filter((found) => /camunda:/.test(found.message))).toEqual([]);
  });
});
