/**
 * `thresher run` checks its handlers against the process before it starts anything (issue 11), and an
 * incident on the `memory:` store says the instance is gone rather than offering a retry that cannot work.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/index.js';
import { callerProcess, definitions, serviceProcess, Workspace } from './helpers.js';

interface Outcome {
  status: string;
  incidents?: { elementId: string; message: string; retry?: string }[];
}

/** A service task `id` of `type` with one attempt. */
const task = (id: string, type: string, incoming: string, outgoing: string) =>
  `<bpmn:serviceTask id="${id}"><bpmn:extensionElements><zeebe:taskDefinition type="${type}" retries="1" /></bpmn:extensionElements><bpmn:incoming>${incoming}</bpmn:incoming><bpmn:outgoing>${outgoing}</bpmn:outgoing></bpmn:serviceTask>`;

/**
 * start → ship (ship-order) → gateway: `=refund` → charge (charge-payment) → notify-a (notify), else
 * notify-b (notify); both → end. Without `refund`, charge and notify-a are never reached.
 */
const orderProcess = `  <bpmn:process id="order" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    ${task('ship', 'ship-order', 'f1', 'f2')}
    <bpmn:exclusiveGateway id="refund-gw" default="f-no"><bpmn:incoming>f2</bpmn:incoming><bpmn:outgoing>f-yes</bpmn:outgoing><bpmn:outgoing>f-no</bpmn:outgoing></bpmn:exclusiveGateway>
    ${task('charge', 'charge-payment', 'f-yes', 'f3')}
    ${task('notify-a', 'notify', 'f3', 'f4')}
    ${task('notify-b', 'notify', 'f-no', 'f5')}
    <bpmn:endEvent id="end"><bpmn:incoming>f4</bpmn:incoming><bpmn:incoming>f5</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="ship" />
    <bpmn:sequenceFlow id="f2" sourceRef="ship" targetRef="refund-gw" />
    <bpmn:sequenceFlow id="f-yes" sourceRef="refund-gw" targetRef="charge">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">= refund = true</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f-no" sourceRef="refund-gw" targetRef="notify-b" />
    <bpmn:sequenceFlow id="f3" sourceRef="charge" targetRef="notify-a" />
    <bpmn:sequenceFlow id="f4" sourceRef="notify-a" targetRef="end" />
    <bpmn:sequenceFlow id="f5" sourceRef="notify-b" targetRef="end" />
  </bpmn:process>`;

/** A process with a start listener of its own and an end listener on its task (execution listeners, Camunda 8.6+). */
const listenedProcess = `  <bpmn:process id="listened" isExecutable="true">
    <bpmn:extensionElements><zeebe:executionListeners><zeebe:executionListener eventType="start" type="audit" /></zeebe:executionListeners></bpmn:extensionElements>
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:serviceTask id="ship"><bpmn:extensionElements><zeebe:taskDefinition type="ship-order" /><zeebe:executionListeners><zeebe:executionListener eventType="end" type="audit" /><zeebe:executionListener eventType="start" type="=dynamic" /></zeebe:executionListeners></bpmn:extensionElements><bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing></bpmn:serviceTask>
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="ship" />
    <bpmn:sequenceFlow id="f2" sourceRef="ship" targetRef="end" />
  </bpmn:process>`;

const ws = new Workspace();

beforeAll(() => {
  ws.write('order.bpmn', definitions('order-defs', orderProcess));
  ws.write('greeting.bpmn', definitions('greeting-defs', serviceProcess));
  ws.write('listened.bpmn', definitions('listened-defs', listenedProcess));
  // `trip` calls `order`: the order's task types are the trip's too.
  ws.write('trip.bpmn', definitions('trip-defs', callerProcess('trip', 'call-order', 'order'), orderProcess));
  ws.write('ship-only.mjs', 'export default { "ship-order": () => ({ shipped: true }) };\n');
  ws.write(
    'ship-notify.mjs',
    'export default { "ship-order": () => ({ shipped: true }), notify: () => ({ notified: true }) };\n',
  );
  ws.write('fail.mjs', "export function greet() {\n  throw new Error('mail server down');\n}\n");
});

afterAll(() => ws.remove());

describe('thresher run --handlers', () => {
  it('should refuse to start when the module lacks task types, naming them and the elements that use them', async () => {
    // given handlers for ship-order only
    // when
    const run = await ws.thresher(['run', 'order.bpmn', '--handlers', 'ship-only.mjs', '--store', 'refused.db']);

    // then a usage error names each missing type with its elements, what the module exports, and the way on
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      '--handlers ship-only.mjs has no handler for task types charge-payment (element charge), notify (elements notify-a, notify-b) of process order (it exports ship-order)',
    );
    expect(run.stderr).toContain('--allow-missing-handlers');
    expect(run.stderr).toMatch(/usage: thresher run/);
    // and nothing was started: the store was never created
    expect(existsSync(ws.path('refused.db'))).toBe(false);
  });

  it('should check the task types of the processes it calls too', async () => {
    const run = await ws.thresher([
      'run',
      'trip.bpmn',
      '--process',
      'trip',
      '--handlers',
      'ship-only.mjs',
      '--store',
      'trip.db',
    ]);

    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stderr).toContain(
      '--handlers ship-only.mjs has no handler for task types charge-payment (element charge), notify (elements notify-a, notify-b) of process trip',
    );
    expect(existsSync(ws.path('trip.db'))).toBe(false);
  });

  it('should check the types of execution listeners too, naming the process for its own', async () => {
    const run = await ws.thresher(['run', 'listened.bpmn', '--handlers', 'ship-only.mjs', '--store', 'listened.db']);

    // a listener type given as `=expr` is known only when its job is created: it is not checked here
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stderr).toContain(
      '--handlers ship-only.mjs has no handler for task type audit (elements listened, ship) of process listened',
    );
    expect(existsSync(ws.path('listened.db'))).toBe(false);
  });

  it('should check nothing without --handlers: the first job stops at an incident naming its type', async () => {
    const run = await ws.thresher(['run', 'order.bpmn', '--store', 'memory:', '--json']);

    expect(run.code).toBe(ExitCode.Failed);
    expect(run.stderr).toBe('');
    expect(run.json<Outcome>().incidents).toMatchObject([
      { elementId: 'ship', message: expect.stringContaining('no handler for task type "ship-order"') },
    ]);
  });

  it('should print the refusal as the error document under --json', async () => {
    const run = await ws.thresher(['run', 'order.bpmn', '--handlers', 'ship-only.mjs', '--store', 'memory:', '--json']);

    expect(run.code).toBe(ExitCode.Usage);
    expect(run.json()).toMatchObject({
      status: 'error',
      exitCode: ExitCode.Usage,
      error: { code: 'THRESHER_CLI_USAGE', message: expect.stringContaining('charge-payment (element charge)') },
    });
  });

  it('should start with --allow-missing-handlers, warn of the missing types, and finish on a path that needs none', async () => {
    // given handlers for ship-order and notify, and an instance that does not take the refund path
    // when
    const run = await ws.thresher([
      'run',
      'order.bpmn',
      '--handlers',
      'ship-notify.mjs',
      '--allow-missing-handlers',
      '--store',
      'memory:',
    ]);

    // then it warns of charge-payment and completes
    expect(run.stderr).toContain(
      'warning: no handler for task type charge-payment (element charge); starting anyway (--allow-missing-handlers)',
    );
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout).toContain('completed');
  });

  it('should stop at once with an incident naming the type when an allowed missing handler is reached', async () => {
    // when the refund path is taken with no charge-payment handler
    const run = await ws.thresher([
      'run',
      'order.bpmn',
      '--handlers',
      'ship-notify.mjs',
      '--allow-missing-handlers',
      '--var',
      'refund=true',
      '--store',
      'missing.db',
      '--json',
    ]);

    // then the warning still goes to stderr, and the incident names the type and the registered handlers
    expect(run.stderr).toMatch(/^warning: no handler for task type charge-payment/m);
    expect(run.code).toBe(ExitCode.Failed);
    const outcome = run.json<Outcome>();
    expect(outcome.status).toBe('incident');
    expect(outcome.incidents).toHaveLength(1);
    expect(outcome.incidents![0]).toMatchObject({
      elementId: 'charge',
      message: expect.stringContaining(
        'no handler for task type "charge-payment"; handlers are registered for: ship-order, notify',
      ),
      retry: expect.stringMatching(/^thresher retry /),
    });
  });

  it('should list --allow-missing-handlers in the help of run', async () => {
    const help = await ws.thresher(['run', '--help']);

    expect(help.code).toBe(ExitCode.Ok);
    expect(help.stdout).toContain('--allow-missing-handlers');
  });
});

describe('thresher run on the memory: store, stopped by an incident', () => {
  it('should say the instance is gone with the process and how to run it on a file store, not how to retry it', async () => {
    // when a handler fails on the memory: store
    const run = await ws.thresher(['run', 'greeting.bpmn', '--handlers', 'fail.mjs', '--store', 'memory:']);

    // then no retry command is offered: the store dies with the process
    expect(run.code).toBe(ExitCode.Failed);
    expect(run.stdout).toMatch(/greet: handler failed: mail server down/);
    expect(run.stdout).not.toMatch(/thresher retry/);
    expect(run.stdout).toContain('the instance is gone with this process');
    expect(run.stdout).toContain('--store ./thresher.db');
  });

  it('should leave retry out of each incident of the --json document', async () => {
    const run = await ws.thresher(['run', 'greeting.bpmn', '--handlers', 'fail.mjs', '--store', 'memory:', '--json']);

    expect(run.code).toBe(ExitCode.Failed);
    const [incident] = run.json<Outcome>().incidents!;
    expect(incident).toMatchObject({ elementId: 'greet' });
    expect(incident).not.toHaveProperty('retry');
  });
});
