import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Fixture, FixtureError, fixtureSchema, loadFixture, parseFixture } from '@thresher/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bpmn, chain, definitions, ext, process } from '../../engine/test/fixtures/bpmn/xml.js';

const sample = (name: string) => fileURLToPath(new URL(`../../../fixtures/order-fulfilment/${name}`, import.meta.url));
const ORDER = sample('order-fulfilment.bpmn');
/** The order process's own end events (those outside its sub-processes), sorted. */
const ENDS = ['done', 'rejected'];
const ORDER_HANDLERS = sample('handlers.mjs');
const adHocSample = (name: string) => fileURLToPath(new URL(`../../../fixtures/ad-hoc/${name}`, import.meta.url));

const serviceTask = (id: string, type: string) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${type}" />`)}</bpmn:serviceTask>`;
const startToEnd = (id: string) =>
  `<bpmn:startEvent id="${id}-start" />\n<bpmn:endEvent id="${id}-end" />\n${chain(`${id}-start`, `${id}-end`)}`;

/** start → work (type do-work) → review (user task) → end, in executable process `p`. */
const SMALL = bpmn(
  `<bpmn:startEvent id="start" />\n${serviceTask('work', 'do-work')}\n<bpmn:userTask id="review" />\n<bpmn:endEvent id="end" />\n${chain('start', 'work', 'review', 'end')}`,
);
const MODELS: Record<string, string> = {
  'small.bpmn': SMALL,
  'two.bpmn': definitions(`${process(startToEnd('p1'), 'p1')}\n${process(startToEnd('p2'), 'p2')}`),
  'documented.bpmn': definitions(`${process(startToEnd('p'), 'p')}\n${process(startToEnd('doc'), 'doc', false)}`),
  'broken.bpmn': bpmn(
    `<bpmn:startEvent id="start" />\n<bpmn:sequenceFlow id="f" sourceRef="start" targetRef="nowhere" />`,
  ),
  // `p` calls `c`, whose service task and user task a fixture of `p` reaches through the call.
  'calls.bpmn': definitions(
    `${process(`<bpmn:startEvent id="s" /><bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="c" />')}</bpmn:callActivity><bpmn:endEvent id="e" />${chain('s', 'call', 'e')}`, 'p')}
     ${process(`<bpmn:startEvent id="cs" />${serviceTask('score', 'score')}<bpmn:userTask id="approve" /><bpmn:endEvent id="ce" />${chain('cs', 'score', 'approve', 'ce')}`, 'c')}`,
  ),
  'handlers.mjs': 'export default { "do-work": async () => ({ done: true }) };\n',
};

let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'thresher-fixture-load-'));
  for (const [name, text] of Object.entries(MODELS)) await writeFile(join(dir, name), text);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes the lines as a fixture file in the temp dir and loads it. */
async function load(...lines: string[]): Promise<Fixture> {
  count += 1;
  const file = join(dir, `case-${count}.fixture.yaml`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return loadFixture(file);
}

async function refusal(lines: string[]): Promise<FixtureError> {
  const error = await load(...lines).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FixtureError);
  expect((error as FixtureError).code).toBe('THRESHER_FIXTURE');
  return error as FixtureError;
}

/** One named test: the fixture is refused at this line and field, for this reason. */
function refuses(name: string, lines: string[], line: number | null, field: string | null, reason: RegExp): void {
  it(`should refuse ${name}`, async () => {
    const error = await refusal(lines);
    expect({ line: error.line, field: error.field }).toEqual({ line, field });
    expect(error.message).toMatch(reason);
    expect(error.file).toMatch(/case-\d+\.fixture\.yaml$/);
  });
}

/** The small model with its one task type scripted: lines 1–3. */
const SMALL_HEAD = ['models: small.bpmn', 'handlers:', '  do-work: {}'];

describe('loadFixture: a valid fixture', () => {
  it('should load every feature into the exact Fixture, paths resolved and durations in ms', async () => {
    const fixture = await load(
      `name: order approved, express`, // 1
      `models: ${ORDER}`,
      'process: order-fulfilment',
      'start:',
      '  variables: { orderId: A-1, total: 120, express: true }', // 5
      '  businessKey: A-1',
      'handlers:',
      '  validate-order: { result: { valid: true } }',
      '  charge-payment: { fail: 2, failMessage: card declined, result: { paymentId: P-1 } }',
      '  reserve-stock: { delay: PT5S, result: { reserved: true } }', // 10
      '  pack-parcel: { bpmnError: PARCEL_TOO_BIG }',
      `handlersModule: ${ORDER_HANDLERS}`,
      'moves:',
      '  - complete: approve',
      '    variables: { approved: true }', // 15
      '  - advance: PT1H',
      '  - wait: parked',
      '  - advance: P1DT0.5S',
      '  - wait: ended',
      'kill: [3, 7]', // 20
      'seed: 42',
      'expect:',
      '  status: completed',
      '  variables: { trackingNumber: TRK-A-1 }',
      '  exactVariables: false', // 25
      '  handlerRuns:',
      '    validate-order: 1',
      '    charge-payment: { min: 1, max: 2 }',
      '    reserve-stock: { min: 1 }',
      '  children: 0', // 30
      '  incidents: [{ element: charge-payment, kind: job-failed }, { element: pack }]',
    );
    expect(fixture).toEqual({
      file: join(dir, `case-${count}.fixture.yaml`),
      name: 'order approved, express',
      models: [{ path: ORDER, xml: readFileSync(ORDER, 'utf8'), dmn: false }],
      process: 'order-fulfilment',
      start: { variables: { orderId: 'A-1', total: 120, express: true }, businessKey: 'A-1' },
      handlers: {
        'validate-order': {
          fail: 0,
          failMessage: 'scripted failure',
          delayMs: 0,
          result: { valid: true },
          bpmnError: null,
        },
        'charge-payment': {
          fail: 2,
          failMessage: 'card declined',
          delayMs: 0,
          result: { paymentId: 'P-1' },
          bpmnError: null,
        },
        'reserve-stock': {
          fail: 0,
          failMessage: 'scripted failure',
          delayMs: 5000,
          result: { reserved: true },
          bpmnError: null,
        },
        'pack-parcel': {
          fail: 0,
          failMessage: 'scripted failure',
          delayMs: 0,
          result: {},
          bpmnError: 'PARCEL_TOO_BIG',
        },
      },
      elementHandlers: {},
      handlersModule: ORDER_HANDLERS,
      moves: [
        { line: 14, index: 0, kind: 'complete', element: 'approve', where: null, variables: { approved: true } },
        { line: 16, index: 1, kind: 'advance', ms: 3_600_000, text: 'PT1H' },
        { line: 17, index: 2, kind: 'wait', until: 'parked' },
        { line: 18, index: 3, kind: 'advance', ms: 86_400_500, text: 'P1DT0.5S' },
        { line: 19, index: 4, kind: 'wait', until: 'ended' },
      ],
      via: 'engine',
      kill: { kind: 'points', points: [3, 7] },
      seed: 42,
      endEvents: ENDS,
      expect: {
        at: 'expect',
        status: 'completed',
        variables: { trackingNumber: 'TRK-A-1' },
        exactVariables: false,
        handlerRuns: {
          'validate-order': { exactly: 1 },
          'charge-payment': { min: 1, max: 2 },
          'reserve-stock': { min: 1, max: Number.POSITIVE_INFINITY },
        },
        children: 0,
        incidents: [
          { element: 'charge-payment', kind: 'job-failed' },
          { element: 'pack', kind: null },
        ],
        ended: null,
        history: null,
        elementRuns: {},
        userTasks: null,
        tasks: null,
        active: null,
        waits: null,
      },
      lines: expect.any(Object),
    });
    expect(fixture.lines).toMatchObject({
      handlersModule: 12,
      'handlers.charge-payment': 9,
      'handlers.charge-payment.fail': 9,
      'moves[3]': 18,
      'moves[3].advance': 18,
      'expect.handlerRuns.reserve-stock.min': 29,
    });
  });

  it('should fill the defaults of a minimal fixture', async () => {
    const fixture = await load(...SMALL_HEAD);
    expect(fixture).toMatchObject({
      name: `case-${count}`,
      models: [{ path: join(dir, 'small.bpmn'), xml: SMALL, dmn: false }],
      process: 'p',
      start: { variables: {}, businessKey: null },
      handlers: { 'do-work': { fail: 0, failMessage: 'scripted failure', delayMs: 0, result: {}, bpmnError: null } },
      handlersModule: null,
      moves: [],
      via: 'engine',
      kill: { kind: 'every' },
      seed: null,
      expect: {
        status: null,
        variables: null,
        exactVariables: false,
        handlerRuns: {},
        children: null,
        incidents: null,
      },
    });
  });

  it('should resolve paths against the file parseFixture is given', async () => {
    const fixture = await parseFixture(
      'models: [../small.bpmn]\nhandlersModule: ../handlers.mjs\nkill: none\n',
      join(dir, 'nested', 'x.fixture.yml'),
    );
    expect(fixture).toMatchObject({
      file: join(dir, 'nested', 'x.fixture.yml'),
      name: 'x',
      models: [{ path: join(dir, 'small.bpmn') }],
      handlersModule: join(dir, 'handlers.mjs'),
      handlers: {},
      kill: { kind: 'none' },
    });
  });

  it('should pick the only executable process beside a documentation pool', async () => {
    const fixture = await load('models: [documented.bpmn]');
    expect(fixture.process).toBe('p');
    expect(fixture.models.map((model) => model.path)).toEqual([join(dir, 'documented.bpmn')]);
  });

  it('should read a random kill plan, a numeric business key and a scripted delay', async () => {
    const fixture = await load(
      ...SMALL_HEAD.slice(0, 2),
      '  do-work: { delay: PT0.25S }',
      'start: { businessKey: 1001 }',
      'kill: { random: 5 }',
      'seed: 7',
      'moves: [{ complete: review }]',
    );
    expect(fixture).toMatchObject({
      start: { businessKey: '1001' },
      kill: { kind: 'random', count: 5 },
      seed: 7,
      handlers: { 'do-work': { delayMs: 250 } },
      moves: [{ kind: 'complete', element: 'review', where: null, variables: {}, line: 7, index: 0 }],
    });
  });
});

describe('loadFixture: models and processes', () => {
  refuses(
    'a model file that does not exist',
    ['models: nowhere.bpmn'],
    1,
    'models',
    /cannot read model nowhere\.bpmn \(.*nowhere\.bpmn\): no such file/,
  );
  refuses(
    'a missing model in a list, naming its item',
    ['models:', '  - small.bpmn', '  - gone.bpmn', 'handlers: { do-work: {} }'],
    3,
    'models[1]',
    /cannot read model gone\.bpmn/,
  );
  refuses(
    'a model that does not compile, with its first issue',
    ['models: broken.bpmn'],
    1,
    'models',
    /model broken\.bpmn does not compile: bpmn:SequenceFlow "f": bpmn:targetRef refers to "nowhere".*\(line \d+ of the model\)/,
  );
  refuses(
    'a process that is not in the models',
    [...SMALL_HEAD, 'process: q'],
    4,
    'process',
    /no process "q" in the models; they have: p$/,
  );
  refuses(
    'a process that is not executable',
    ['models: documented.bpmn', 'process: doc'],
    2,
    'process',
    /process "doc" is not executable/,
  );
  refuses(
    'an omitted process when the models hold several',
    ['name: several', 'models: two.bpmn'],
    2,
    'process',
    /several executable processes \(p1, p2\); name one with process:/,
  );
});

describe('loadFixture: handlers', () => {
  refuses(
    'a handler for a task type no service task has',
    [...SMALL_HEAD, '  validate-order: {}'],
    4,
    'handlers.validate-order',
    /unknown task type validate-order; the models have: do-work$/,
  );
  refuses(
    'a task type with neither a script nor a handlers module',
    ['models: small.bpmn', 'handlers: {}'],
    2,
    'handlers',
    /task type do-work has no handler/,
  );
  refuses(
    'a handlers module that does not exist',
    ['models: small.bpmn', 'handlersModule: ./none.mjs'],
    2,
    'handlersModule',
    /cannot find handlers module \.\/none\.mjs/,
  );
  refuses(
    'a negative fail count',
    [...SMALL_HEAD.slice(0, 2), '  do-work:', '    fail: -1'],
    4,
    'handlers.do-work.fail',
    /must be at least 0/,
  );
  refuses(
    'a fail count that is not a number',
    [...SMALL_HEAD.slice(0, 2), '  do-work: { fail: twice }'],
    3,
    'handlers.do-work.fail',
    /must be a whole number/,
  );
  refuses(
    'a malformed handler delay',
    [...SMALL_HEAD.slice(0, 2), '  do-work:', '    result: { a: 1 }', '    delay: soon'],
    5,
    'handlers.do-work.delay',
    /malformed duration "soon"/,
  );
});

describe('loadFixture: called processes', () => {
  const CALLS = ['name: calls', 'models: ./calls.bpmn', 'process: p'];
  it('should accept completing a user task of a process the started one calls', async () => {
    const fixture = await load(
      ...CALLS,
      'handlers:',
      '  score: { result: { s: 1 } }',
      'moves:',
      '  - complete: approve',
    );
    expect(fixture.moves).toEqual([expect.objectContaining({ kind: 'complete', element: 'approve' })]);
  });
  refuses(
    'a called process service task left without a handler',
    [...CALLS, 'moves:', '  - complete: approve'],
    2,
    'handlers',
    /task type score has no handler/,
  );
});

describe('loadFixture: moves', () => {
  it('should load a retry of the incident at an element', async () => {
    const fixture = await load(...SMALL_HEAD, 'moves:', '  - retry: work');
    expect(fixture.moves).toEqual([expect.objectContaining({ kind: 'retry', element: 'work', index: 0 })]);
  });
  refuses(
    'retrying at an element the models do not have',
    [...SMALL_HEAD, 'moves:', '  - retry: wrok'],
    5,
    'moves[0].retry',
    /"wrok" is not an element of /,
  );
  refuses(
    'completing an element that is not a user task',
    [...SMALL_HEAD, 'moves:', '  - complete: work'],
    5,
    'moves[0].complete',
    /"work" is not a user task of process p; its user tasks: review/,
  );
  it('should load assign and update moves and a tasks expectation', async () => {
    const fixture = await load(
      ...SMALL_HEAD,
      'moves:',
      '  - assign: review',
      '    assignee: kim',
      '  - update: review',
      '    changes: { priority: 90 }',
      '    where: { region: north }',
      '  - assign: review',
      '    assignee: null',
      '  - expect:',
      '      tasks: [{ element: review, assignee: null, priority: 90 }]',
    );
    expect(fixture.moves.map(({ line: _line, ...move }) => move)).toEqual([
      { index: 0, kind: 'assign', element: 'review', where: null, assignee: 'kim' },
      { index: 1, kind: 'update', element: 'review', where: { region: 'north' }, changes: { priority: 90 } },
      { index: 2, kind: 'assign', element: 'review', where: null, assignee: null },
      expect.objectContaining({
        kind: 'expect',
        expect: expect.objectContaining({ tasks: [{ element: 'review', assignee: null, priority: 90 }] }),
      }),
    ]);
  });
  it('should load an activate move, elements by id or with variables', async () => {
    const fixture = await load(
      `models: ${adHocSample('incident-response.bpmn')}`,
      `handlersModule: ${adHocSample('incident-response.handlers.mjs')}`,
      'moves:',
      '  - activate: respond',
      '    elements: [status-update, { elementId: fix, variables: { attempt: 1 } }]',
    );
    expect(fixture.moves).toEqual([
      {
        line: 4,
        index: 0,
        kind: 'activate',
        element: 'respond',
        elements: [
          { elementId: 'status-update', variables: {} },
          { elementId: 'fix', variables: { attempt: 1 } },
        ],
      },
    ]);
  });
  refuses(
    'activating what the ad-hoc sub-process cannot activate',
    [
      `models: ${adHocSample('incident-response.bpmn')}`,
      `handlersModule: ${adHocSample('incident-response.handlers.mjs')}`,
      'moves:',
      '  - activate: respond',
      '    elements: [diagnose]',
    ],
    5,
    'moves[0].elements[0]',
    /"diagnose" cannot be activated in "respond"; it can activate: page-oncall, triage, fix, status-update/,
  );
  refuses(
    'assigning an element that is not a user task',
    [...SMALL_HEAD, 'moves:', '  - assign: work', '    assignee: kim'],
    5,
    'moves[0].assign',
    /"work" is not a user task of process p/,
  );
  refuses(
    'a tasks expectation of an element that is not a user task',
    [...SMALL_HEAD, 'expect:', '  tasks: [{ element: work }]'],
    5,
    'expect.tasks[0].element',
    /"work" is not a user task of process p/,
  );
  refuses(
    'a malformed advance',
    [...SMALL_HEAD, 'moves:', '  - complete: review', '  - advance: PT'],
    6,
    'moves[1].advance',
    /malformed duration "PT": no component/,
  );
  refuses(
    'an advance in words',
    [...SMALL_HEAD, 'moves:', '  - advance: 5 seconds'],
    5,
    'moves[0].advance',
    /malformed duration "5 seconds": an ISO 8601 duration starts with P/,
  );
  refuses(
    'an advance in years',
    [...SMALL_HEAD, 'moves:', '  - advance: P1Y'],
    5,
    'moves[0].advance',
    /years and months are not supported/,
  );
  refuses(
    'a fraction on a component that is not the smallest',
    [...SMALL_HEAD, 'moves:', '  - advance: PT1.5H30M'],
    5,
    'moves[0].advance',
    /only the smallest component may have a fraction/,
  );
  refuses(
    'a message move no event of the models waits for',
    [...SMALL_HEAD, 'moves:', '  - message: payment-received', '    correlationKey: A-1'],
    5,
    'moves[0].message',
    /no event of process \S+ waits for a message/,
  );
  refuses(
    'a signal move no event of the models waits for',
    [...SMALL_HEAD, 'moves:', '  - wait: parked', '  - signal: shutdown'],
    6,
    'moves[1].signal',
    /no event of process \S+ waits for a signal/,
  );
  refuses(
    'a key the move does not take',
    [...SMALL_HEAD, 'moves:', '  - advance: PT1H', '    variables: { a: 1 }'],
    6,
    'moves[0].variables',
    /unknown key "variables" in \{ advance: <ISO 8601 duration> \}; expected one of: advance/,
  );
  refuses(
    'a move with no action',
    [...SMALL_HEAD, 'moves:', '  - wait: parked', '  - { variables: {} }'],
    6,
    'moves[1]',
    /expected \{ complete: <user task id>, where\?, variables\? \}, .* or \{ restart: \{ handlers\?, withoutHandlers\?, whileStopped\? \} \}/,
  );
  refuses(
    'a wait for something else',
    [...SMALL_HEAD, 'moves:', '  - wait: forever'],
    5,
    'moves[0].wait',
    /must be one of: parked, ended/,
  );
});

describe('loadFixture: kill plans', () => {
  refuses('a kill point of zero', [...SMALL_HEAD, 'kill: [3, 0]'], 4, 'kill[1]', /must be at least 1/);
  refuses(
    'a kill point that is not a whole number',
    [...SMALL_HEAD, 'kill:', '  - 3', '  - 2.5'],
    6,
    'kill[1]',
    /must be a whole number/,
  );
  refuses(
    'kill points out of order',
    [...SMALL_HEAD, 'kill:', '  - 3', '  - 7', '  - 7'],
    7,
    'kill[2]',
    /kill points must be strictly ascending: 7 after 7/,
  );
  refuses('an empty list of kill points', [...SMALL_HEAD, 'kill: []'], 4, 'kill', /must not be empty/);
  refuses('a random plan of no kills', [...SMALL_HEAD, 'kill: { random: 0 }'], 4, 'kill.random', /must be at least 1/);
  refuses(
    'a kill plan of another shape',
    [...SMALL_HEAD, 'kill: sometimes'],
    4,
    'kill',
    /expected every or none, a list of persist point numbers or \{ random: N \}/,
  );
});

describe('loadFixture: expectations', () => {
  refuses(
    'an unknown status',
    [...SMALL_HEAD, 'expect:', '  status: done'],
    5,
    'expect.status',
    /must be one of: completed, terminated, running/,
  );
  refuses(
    'a handler run count for an unknown task type',
    [...SMALL_HEAD, 'expect:', '  handlerRuns:', '    do-work: 1', '    other: 2'],
    7,
    'expect.handlerRuns.other',
    /unknown task type other; the models have: do-work/,
  );
  refuses(
    'a range whose min is above its max',
    [...SMALL_HEAD, 'expect:', '  handlerRuns: { do-work: { min: 3, max: 2 } }'],
    5,
    'expect.handlerRuns.do-work',
    /min 3 is above max 2/,
  );
  refuses(
    'an incident on an element the process does not have',
    [...SMALL_HEAD, 'expect:', '  incidents:', '    - element: nowhere'],
    6,
    'expect.incidents[0].element',
    /"nowhere" is not an element of process p/,
  );
  refuses(
    'an incident without its element',
    [...SMALL_HEAD, 'expect:', '  incidents:', '    - kind: job-failed'],
    6,
    'expect.incidents[0].element',
    /is required/,
  );
});

describe('loadFixture: shape and syntax', () => {
  refuses('a file without models', ['name: nothing'], 1, 'models', /is required/);
  refuses('models of another shape', ['models: 3'], 1, 'models', /expected a path or a list of paths/);
  refuses(
    'an unknown top-level key, naming it',
    [...SMALL_HEAD, 'modles: small.bpmn'],
    4,
    'modles',
    /unknown key "modles"; expected one of: name, models, process/,
  );
  refuses(
    'an unknown key in a handler script',
    [...SMALL_HEAD.slice(0, 2), '  do-work:', '    reslt: { a: 1 }'],
    4,
    'handlers.do-work.reslt',
    /unknown key "reslt"; expected one of: result, fail, failMessage, delay, bpmnError/,
  );
  refuses(
    'an unknown key in expect',
    [...SMALL_HEAD, 'expect:', '  status: completed', '  childs: 0'],
    6,
    'expect.childs',
    /unknown key "childs"/,
  );
  refuses(
    'start variables that are not a mapping',
    [...SMALL_HEAD, 'start:', '  variables: [a, b]'],
    5,
    'start.variables',
    /must be a mapping/,
  );
  refuses(
    'a bad indentation, naming its line',
    ['models: small.bpmn', 'handlers:', '  do-work:', '    result: {}', '   fail: 2'],
    5,
    null,
    /not valid YAML: All mapping items must start at the same column/,
  );
  refuses(
    'a mis-indented move, naming its line',
    [...SMALL_HEAD, 'moves:', '  - wait: parked', '   - complete: review'],
    6,
    null,
    /not valid YAML/,
  );
  refuses('a duplicate key, naming its line', [...SMALL_HEAD, 'models: two.bpmn'], 4, null, /Map keys must be unique/);
  refuses('an empty file', [''], 1, null, /the fixture is empty; it needs at least models:/);

  it('should name the first problem by line and count the others', async () => {
    const error = await refusal(['models: small.bpmn', 'kill: [0]', 'seed: -1', 'extra: true']);
    expect({ line: error.line, field: error.field }).toEqual({ line: 2, field: 'kill[0]' });
    expect(error.message).toMatch(/must be at least 1 \(and 2 more\)$/);
  });

  it('should refuse a fixture file that does not exist', async () => {
    const error = await loadFixture(join(dir, 'absent.fixture.yaml')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FixtureError);
    expect(error).toMatchObject({ code: 'THRESHER_FIXTURE', line: null, field: null });
    expect((error as Error).message).toMatch(/cannot read the fixture: no such file/);
  });
});

describe("fixtures/: the project's own fixtures", () => {
  const root = fileURLToPath(new URL('../../../fixtures/', import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.fixture.yaml') && !name.split(sep).includes('node_modules'))
    .sort();

  it('should have a fixture for the sample', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const name of files) {
    it(`should load ${name}`, async () => {
      const fixture = await loadFixture(join(root, name));
      expect(fixture.models.length).toBeGreaterThan(0);
      expect(fixture.expect.status).not.toBeNull();
    });
  }
});

describe('fixture.schema.json', () => {
  it('should describe every property, for editors', () => {
    const undocumented: string[] = [];
    const walk = (schema: unknown, path: string): void => {
      if (Array.isArray(schema)) {
        for (const [index, item] of schema.entries()) walk(item, `${path}/${index}`);
        return;
      }
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Record<string, unknown>;
      for (const [name, property] of Object.entries((node.properties as Record<string, unknown>) ?? {})) {
        if (typeof (property as { description?: unknown }).description !== 'string') {
          undocumented.push(`${path}/properties/${name}`);
        }
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
    };
    walk(fixtureSchema, '#');
    expect(undocumented).toEqual([]);
    expect(fixtureSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('should ship at @thresher/testing/fixture.schema.json', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>;
      files: string[];
    };
    const target = manifest.exports['./fixture.schema.json'] as string;
    expect(target).toBe('./src/fixture/fixture.schema.json');
    expect(JSON.parse(readFileSync(new URL(`../${target}`, import.meta.url), 'utf8'))).toEqual(fixtureSchema);
    expect(manifest.files).toContain('src');
  });

  it('should resolve by its package path, as an editor or a consumer asks for it', () => {
    const require = createRequire(import.meta.url);
    const resolved = require.resolve('@thresher/testing/fixture.schema.json');
    expect(JSON.parse(readFileSync(resolved, 'utf8'))).toEqual(fixtureSchema);
  });

  it('should no longer call message and signal moves reserved: the loader runs them', () => {
    expect(JSON.stringify(fixtureSchema)).not.toMatch(/reserved|refuses this move/i);
  });
});
