import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import {
  compile,
  type GatewayNode,
  type Node,
  NodeType,
  type ProcessDef,
  type ProcessModel,
  type ScriptTaskNode,
  type ServiceTaskNode,
  type StartEventNode,
  type SubProcessNode,
  type UserTaskNode,
} from '../src/model/index.js';
import { around, bpmn, chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/bpmn/${name}`, import.meta.url), 'utf8');
const orderFulfilment = () =>
  readFileSync(new URL('../../../fixtures/order-fulfilment/order-fulfilment.bpmn', import.meta.url), 'utf8');

function only(model: ProcessModel): ProcessDef {
  expect(model.processes.size).toBe(1);
  return [...model.processes.values()][0] as ProcessDef;
}

function nodeOf<TNode extends Node = Node>(model: ProcessModel, id: string): TNode {
  const node = only(model).nodes.get(id);
  if (!node) throw new Error(`no node ${id}`);
  return node as TNode;
}

describe('compile: events and tasks', () => {
  it('StartEvent and EndEvent: compiles none events with their flows', async () => {
    const model = await compile(
      bpmn(`<bpmn:startEvent id="start" name="Go" />\n<bpmn:endEvent id="end" />\n${flow('f1', 'start', 'end')}`),
    );
    const process = only(model);
    expect(process).toMatchObject({ id: 'p', name: null, executable: true, startNodes: ['start'] });
    expect(process.nodes.get('start')).toEqual({
      id: 'start',
      name: 'Go',
      type: NodeType.StartEvent,
      container: 'p',
      incoming: [],
      outgoing: ['f1'],
      io: { inputs: [], outputs: [] },
    });
    expect(process.nodes.get('end')).toMatchObject({ type: NodeType.EndEvent, incoming: ['f1'], outgoing: [] });
    expect(process.flows.get('f1')).toEqual({ id: 'f1', name: null, source: 'start', target: 'end', condition: null });
  });

  it('EndEvent#terminateEventDefinition: compiles a terminate end event', async () => {
    const model = await compile(
      around('<bpmn:task id="x" />').replace(
        '<bpmn:endEvent id="end" />',
        '<bpmn:endEvent id="end"><bpmn:terminateEventDefinition id="t1" /></bpmn:endEvent>',
      ),
    );
    expect(nodeOf(model, 'end').type).toBe(NodeType.TerminateEndEvent);
  });

  it('Task and ManualTask: pass through as task and manualTask', async () => {
    expect(nodeOf(await compile(around('<bpmn:task id="x" name="Think" />')), 'x')).toMatchObject({
      type: NodeType.Task,
      name: 'Think',
      incoming: ['f_start_x'],
      outgoing: ['f_x_end'],
    });
    expect(nodeOf(await compile(around('<bpmn:manualTask id="x" />')), 'x').type).toBe(NodeType.ManualTask);
  });

  it('ServiceTask#taskDefinition: reads type, retries and headers', async () => {
    const model = await compile(
      around(`<bpmn:serviceTask id="x">${ext(`
        <zeebe:taskDefinition type="charge-card" retries="5" />
        <zeebe:taskHeaders><zeebe:header key="region" value="eu" /><zeebe:header key="tier" value="gold" /></zeebe:taskHeaders>`)}
      </bpmn:serviceTask>`),
    );
    expect(nodeOf<ServiceTaskNode>(model, 'x')).toMatchObject({
      type: NodeType.ServiceTask,
      taskType: 'charge-card',
      retries: 5,
      headers: { region: 'eu', tier: 'gold' },
    });
  });

  it('ServiceTask: falls back to the element id without a task definition', async () => {
    const task = nodeOf<ServiceTaskNode>(await compile(around('<bpmn:serviceTask id="x" />')), 'x');
    expect(task).toMatchObject({ taskType: 'x', retries: undefined, headers: {} });
  });

  it('ScriptTask#script: keeps the FEEL expression without "=" and the result variable', async () => {
    const model = await compile(
      around(
        `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="= a + 1" resultVariable="b" />')}</bpmn:scriptTask>`,
      ),
    );
    expect(nodeOf<ScriptTaskNode>(model, 'x')).toMatchObject({
      type: NodeType.ScriptTask,
      expression: { source: 'a + 1', elementId: 'x' },
      resultVariable: 'b',
    });
  });

  it('UserTask#assignmentDefinition: a static assignee is a string, "=expr" is FEEL, else null', async () => {
    const withAssignee = (assignee: string) =>
      around(`<bpmn:userTask id="x">${ext(`<zeebe:assignmentDefinition assignee="${assignee}" />`)}</bpmn:userTask>`);
    expect(nodeOf<UserTaskNode>(await compile(withAssignee('demo')), 'x')).toMatchObject({
      type: NodeType.UserTask,
      assignee: { source: '"demo"', elementId: 'x' },
    });
    expect(nodeOf<UserTaskNode>(await compile(withAssignee('= owner')), 'x').assignee).toEqual({
      source: 'owner',
      elementId: 'x',
    });
    const plain = await compile(around(`<bpmn:userTask id="x">${ext('<zeebe:userTask />')}</bpmn:userTask>`));
    expect(nodeOf<UserTaskNode>(plain, 'x').assignee).toBeNull();
  });
});

describe('compile: gateways and flows', () => {
  const split = (kind: string, attrs = '') =>
    bpmn(`
      <bpmn:startEvent id="start" />
      <bpmn:${kind} id="gw"${attrs} />
      <bpmn:task id="a" /><bpmn:task id="b" />
      ${flow('f0', 'start', 'gw')}
      ${kind === 'parallelGateway' ? flow('fa', 'gw', 'a') : flow('fa', 'gw', 'a', '= amount &gt; 100')}
      ${flow('fb', 'gw', 'b')}`);

  it('ExclusiveGateway#default: keeps the default flow and parses conditions', async () => {
    const model = await compile(split('exclusiveGateway', ' default="fb"'));
    expect(nodeOf<GatewayNode>(model, 'gw')).toMatchObject({
      type: NodeType.ExclusiveGateway,
      defaultFlow: 'fb',
      incoming: ['f0'],
      outgoing: ['fa', 'fb'],
    });
    expect(only(model).flows.get('fa')?.condition).toEqual({ source: 'amount > 100', elementId: 'fa' });
    expect(only(model).flows.get('fb')?.condition).toBeNull();
  });

  it('ExclusiveGateway: has no default flow unless one is named', async () => {
    expect(nodeOf<GatewayNode>(await compile(split('exclusiveGateway')), 'gw').defaultFlow).toBeNull();
  });

  it('InclusiveGateway#default: keeps the default flow', async () => {
    const model = await compile(split('inclusiveGateway', ' default="fb"'));
    expect(nodeOf<GatewayNode>(model, 'gw')).toMatchObject({ type: NodeType.InclusiveGateway, defaultFlow: 'fb' });
  });

  it('ParallelGateway: forks unconditionally with no default flow', async () => {
    const model = await compile(split('parallelGateway'));
    expect(nodeOf<GatewayNode>(model, 'gw')).toMatchObject({ type: NodeType.ParallelGateway, defaultFlow: null });
  });

  it('SequenceFlow#conditionExpression: refuses a condition without Zeebe\'s "=", showing the expression meant', async () => {
    const refused = compile(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" /><bpmn:endEvent id="end" />
        ${flow('f0', 'start', 'gw')}${flow('f1', 'gw', 'end', 'ok == true')}`),
    );
    await expect(refused).rejects.toMatchObject({
      issues: [
        {
          elementId: 'f1',
          message: expect.stringMatching(/static value.*write "=ok = true".*"==" is not FEEL equality/),
        },
      ],
    });
  });

  it('SequenceFlow#name: keeps the flow name', async () => {
    const model = await compile(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:endEvent id="end" />
        <bpmn:sequenceFlow id="f1" name="Go on" sourceRef="start" targetRef="end" />`),
    );
    expect(only(model).flows.get('f1')?.name).toBe('Go on');
  });

  it('allows an element without outgoing flows that is not an end event (implicit end)', async () => {
    const model = await compile(bpmn(`<bpmn:startEvent id="start" /><bpmn:task id="t" />${flow('f1', 'start', 't')}`));
    expect(nodeOf(model, 't').outgoing).toEqual([]);
  });
});

describe('compile: sub-processes and IO mappings', () => {
  it('SubProcess: nests containers and lists every node and flow in the process', async () => {
    const model = await compile(fixture('nested-sub-processes.bpmn'));
    const process = only(model);
    expect(nodeOf<SubProcessNode>(model, 'outer')).toMatchObject({
      type: NodeType.SubProcess,
      container: 'p',
      startNodes: ['outer-start'],
    });
    expect(nodeOf<SubProcessNode>(model, 'inner')).toMatchObject({
      type: NodeType.SubProcess,
      container: 'outer',
      startNodes: ['inner-start'],
    });
    expect(nodeOf(model, 'inner-task')).toMatchObject({ container: 'inner', incoming: ['fi1'], outgoing: ['fi2'] });
    expect(nodeOf(model, 'outer-end').container).toBe('outer');
    expect(process.startNodes).toEqual(['start']);
    expect([...process.nodes.keys()]).toEqual([
      'start',
      'outer',
      'outer-start',
      'inner',
      'inner-start',
      'inner-task',
      'inner-end',
      'outer-end',
      'end',
    ]);
    expect(process.flows.get('fi1')).toMatchObject({ source: 'inner-start', target: 'inner-task' });
  });

  it('zeebe:ioMapping: compiles inputs and outputs on tasks and sub-processes', async () => {
    const io = ext(`<zeebe:ioMapping>
        <zeebe:input source="= order.id" target="orderId" />
        <zeebe:input source="customer" target="who" />
        <zeebe:output source="=result" target="outcome" />
      </zeebe:ioMapping>`);
    const expected = {
      inputs: [
        { source: { source: 'order.id', elementId: 'x' }, target: 'orderId' },
        // Zeebe's value rule: without "=" the source is the literal string.
        { source: { source: '"customer"', elementId: 'x' }, target: 'who' },
      ],
      outputs: [{ source: { source: 'result', elementId: 'x' }, target: 'outcome' }],
    };
    for (const element of [
      `<bpmn:serviceTask id="x">${io}</bpmn:serviceTask>`,
      `<bpmn:userTask id="x">${io}</bpmn:userTask>`,
      `<bpmn:task id="x">${io}</bpmn:task>`,
      `<bpmn:subProcess id="x">${io}<bpmn:startEvent id="s" /></bpmn:subProcess>`,
    ]) {
      expect(nodeOf(await compile(around(element)), 'x').io).toEqual(expected);
    }
  });
});

describe('compile: documents', () => {
  it('Definitions#id: is the definition id, else the first process id', async () => {
    const xml = bpmn('<bpmn:startEvent id="start" />');
    expect((await compile(xml)).definitionId).toBe('defs');
    expect((await compile(definitions(process('<bpmn:startEvent id="start" />', 'only'), ''))).definitionId).toBe(
      'only',
    );
  });

  it('accepts and ignores diagrams, documentation, artifacts, data, lanes and descriptive extensions', async () => {
    const model = await compile(fixture('descriptive-content.bpmn'));
    const process = only(model);
    expect([...process.nodes.keys()]).toEqual(['start', 'review', 'end']);
    expect(nodeOf<UserTaskNode>(model, 'review').assignee).toEqual({ source: '"alice"', elementId: 'review' });
    expect([...process.flows.keys()]).toEqual(['f1', 'f2']);
  });

  it("reads a process's none start event's zeebe:formDefinition as its start form, and warns of one elsewhere", async () => {
    const model = await compile(fixture('descriptive-content.bpmn'));
    expect(nodeOf<StartEventNode>(model, 'start').form).toEqual({ kind: 'linked', formId: 'request-form' });
    const inner = around(
      `<bpmn:subProcess id="x"><bpmn:startEvent id="ss">${ext('<zeebe:formDefinition formId="x" />')}</bpmn:startEvent><bpmn:endEvent id="se" />${flow('sf', 'ss', 'se')}</bpmn:subProcess>`,
    );
    const nested = await compile(inner);
    expect(nodeOf<StartEventNode>(nested, 'ss').form).toBeUndefined();
    expect(nested.warnings).toContainEqual({
      elementId: 'ss',
      message: expect.stringContaining('zeebe:formDefinition is ignored'),
    });
  });

  it("Collaboration: compiles each pool's process; a non-executable pool that compiles is kept", async () => {
    const model = await compile(fixture('collaboration.bpmn'));
    expect([...model.processes.keys()]).toEqual(['shop', 'customer']);
    expect(model.processes.get('shop')?.executable).toBe(true);
    expect(model.processes.get('customer')?.executable).toBe(false);
  });

  it('Collaboration: leaves out a non-executable pool Thresher cannot run, with a warning', async () => {
    const model = await compile(fixture('collaboration-with-documentation-pool.bpmn'));
    expect([...model.processes.keys()]).toEqual(['shop']);
    expect(model.warnings).toContainEqual({
      elementId: 'wait',
      message: expect.stringContaining('non-executable process "customer" left out'),
    });
  });

  it('refuses a file without an executable process unless allowNonExecutable is set', async () => {
    const xml = definitions(process(`<bpmn:startEvent id="s" />`, 'doc', false));
    await expect(compile(xml)).rejects.toBeInstanceOf(ModelError);
    const model = await compile(xml, { allowNonExecutable: true });
    expect(model.processes.get('doc')?.executable).toBe(false);
  });

  it('records harmless read notes as warnings', async () => {
    const model = await compile(around('<bpmn:serviceTask id="x" zeebe:unheardOf="1" />'));
    expect(model.warnings).toEqual([{ elementId: 'x', message: 'unknown attribute <zeebe:unheardOf>' }]);
  });

  it('returns a deeply frozen model', async () => {
    const model = await compile(around('<bpmn:task id="x" />'));
    const node = nodeOf(model, 'x');
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.isFrozen(node)).toBe(true);
    expect(Object.isFrozen(node.outgoing)).toBe(true);
  });
});

describe('compile: digest', () => {
  const base = fixture('digest-base.bpmn');

  it('is the sha256 hex of the canonical model', async () => {
    expect((await compile(base)).digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not change with whitespace or diagram coordinates', async () => {
    const { digest } = await compile(base);
    const reformatted = base
      .replace(/\n\s*/g, '\n\t\t')
      .replace(/x="(\d+)"/g, (_, x: string) => `x="${Number(x) + 40}"`);
    expect(reformatted).not.toBe(base);
    expect((await compile(reformatted)).digest).toBe(digest);
    expect((await compile(base.replace(/<bpmndi:BPMNDiagram[\s\S]*<\/bpmndi:BPMNDiagram>/, ''))).digest).toBe(digest);
  });

  it('changes when behaviour changes', async () => {
    const { digest } = await compile(base);
    const variants = [
      base.replace('amount &gt; 100', 'amount &gt; 200'),
      base.replace('type="pay"', 'type="pay-v2"'),
      base.replace('default="f-small"', ''),
      base.replace('retries="3"', 'retries="4"'),
    ];
    for (const variant of variants) {
      expect(variant).not.toBe(base);
      expect((await compile(variant)).digest).not.toBe(digest);
    }
  });
});

describe('compile: the order-fulfilment sample', () => {
  it('compiles with the expected node types', async () => {
    const model = await compile(orderFulfilment());
    expect(model.definitionId).toBe('order-fulfilment-definitions');
    const process = only(model);
    expect(process).toMatchObject({ id: 'order-fulfilment', executable: true, startNodes: ['order-received'] });
    const types = Object.fromEntries([...process.nodes.values()].map((node) => [node.id, node.type]));
    expect(types).toEqual({
      'order-received': 'startEvent',
      validate: 'serviceTask',
      'needs-approval': 'exclusiveGateway',
      approve: 'userTask',
      'is-approved': 'exclusiveGateway',
      rejected: 'terminateEndEvent',
      'approval-merge': 'exclusiveGateway',
      'fulfil-fork': 'parallelGateway',
      'reserve-stock': 'serviceTask',
      'charge-payment': 'serviceTask',
      'fulfil-join': 'parallelGateway',
      'courier-split': 'inclusiveGateway',
      'book-express': 'serviceTask',
      'gift-note': 'scriptTask',
      'book-standard': 'serviceTask',
      'courier-join': 'inclusiveGateway',
      shipping: 'subProcess',
      'shipping-start': 'startEvent',
      pack: 'serviceTask',
      label: 'scriptTask',
      dispatch: 'serviceTask',
      'shipping-end': 'endEvent',
      notify: 'serviceTask',
      done: 'endEvent',
    });
    expect(nodeOf<ServiceTaskNode>(model, 'charge-payment')).toMatchObject({ taskType: 'charge-payment', retries: 2 });
    expect(nodeOf<ServiceTaskNode>(model, 'book-express').taskType).toBe('book-courier');
    expect(nodeOf<GatewayNode>(model, 'courier-split').defaultFlow).toBe('Flow_standard');
    expect(nodeOf<ScriptTaskNode>(model, 'gift-note').expression.source).toBe('"Gift for order " + orderId');
    expect(nodeOf(model, 'shipping').io).toEqual({
      inputs: [{ source: { source: 'orderId', elementId: 'shipping' }, target: 'shipmentOrder' }],
      outputs: [{ source: { source: 'trackingNumber', elementId: 'shipping' }, target: 'trackingNumber' }],
    });
    expect(nodeOf(model, 'dispatch')).toMatchObject({ container: 'shipping' });
    expect(process.flows.get('Flow_needs_approval')?.condition?.source).toBe('total > 100');
    expect(model.warnings).toEqual([]);
  });

  it('ships handlers for every task type of the model', async () => {
    const model = await compile(orderFulfilment());
    const url = new URL('../../../fixtures/order-fulfilment/handlers.mjs', import.meta.url).href;
    const { default: handlers } = (await import(url)) as {
      default: Record<string, (job: unknown) => Promise<Record<string, unknown>>>;
    };
    const taskTypes = new Set(
      [...only(model).nodes.values()].flatMap((node) => (node.type === NodeType.ServiceTask ? [node.taskType] : [])),
    );
    expect(new Set(Object.keys(handlers))).toEqual(taskTypes);
    const job = {
      variables: { orderId: 'A-1', shipmentOrder: 'A-1' },
      idempotencyKey: 'k',
      elementId: 'book-express',
      attempt: 1,
    };
    expect(await handlers['validate-order']?.(job)).toEqual({ valid: true, gift: false, express: false });
    expect(await handlers['book-courier']?.(job)).toEqual({ courier: 'express' });
    expect(await handlers['dispatch-parcel']?.(job)).toEqual({ tracking: 'TRK-A-1' });
    expect(await handlers['charge-payment']?.(job)).toEqual({ paymentId: 'PAY-A-1' });
  });
});

describe('compile: flow order', () => {
  it('lists incoming and outgoing flows in document order', async () => {
    const model = await compile(
      bpmn(
        `<bpmn:startEvent id="s" /><bpmn:task id="a" /><bpmn:task id="b" /><bpmn:endEvent id="e" />${chain('s', 'a', 'b', 'e')}`,
      ),
    );
    expect(nodeOf(model, 'a')).toMatchObject({ incoming: ['f_s_a'], outgoing: ['f_a_b'] });
  });
});
