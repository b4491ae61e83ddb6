/**
 * Looping activities. Multi-instance: one body per item (or per count), sequential or parallel, each body seeing
 * its `inputElement` and `loopCounter`; outputs gathered in input order whatever order bodies finish in;
 * a completion condition ends the activity early, cancelling the open bodies; a boundary on the activity
 * interrupts every body. Standard loops: a pass, then another while the loop condition holds (also before
 * the first with `testBefore`), at most `loopMaximum`.
 */
import {
  type CheckpointBody,
  CorruptCheckpointError,
  canonicalJson,
  createMemoryRepository,
  openCheckpoint,
  type Repository,
  sealCheckpoint,
} from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { initialBodyData } from '../src/core/composites/loops.js';
import { InstanceState } from '../src/core/step/state.js';
import { Engine } from '../src/engine.js';
import type { Job } from '../src/index.js';
import { openState, packBody, unpackBody } from '../src/runtime/document/capture.js';
import { bareBody } from './fixtures/bodies.js';
import { bpmn, chain, ext, flow } from './fixtures/bpmn/xml.js';

const loop = (attrs: string, zeebe: string, inner = '') =>
  `<bpmn:multiInstanceLoopCharacteristics ${attrs}>${ext(`<zeebe:loopCharacteristics ${zeebe} />`)}${inner}</bpmn:multiInstanceLoopCharacteristics>`;

function model(activity: string): string {
  return bpmn(`<bpmn:startEvent id="start" />${activity}<bpmn:endEvent id="end" />${chain('start', 'each', 'end')}`);
}

const CHARGE = `${ext('<zeebe:taskDefinition type="charge" />')}`;

async function run(xml: string, variables: Record<string, unknown>, handlers = {}) {
  const engine = new Engine({ repository: createMemoryRepository(), handlers, backoff: () => 0 });
  await engine.deploy(xml);
  const id = await engine.start('p', { variables });
  return { engine, id };
}

describe('multi-instance service tasks', () => {
  it('sequential: one body after another, each with its item and loopCounter, outputs in order', async () => {
    const seen: Job[] = [];
    const xml = model(
      `<bpmn:serviceTask id="each">${CHARGE}${loop('isSequential="true"', 'inputCollection="=orders" inputElement="order" outputCollection="receipts" outputElement="=receipt"')}</bpmn:serviceTask>`,
    );
    const { engine, id } = await run(
      xml,
      { orders: ['a', 'b', 'c'] },
      {
        charge: (job: Job) => {
          expect(seen.filter((s) => s.variables.loopCounter === job.variables.loopCounter)).toEqual([]);
          seen.push(job);
          return { receipt: `paid-${String(job.variables.order)}` };
        },
      },
    );
    expect((await engine.settled(id)).status).toBe('completed');
    expect(seen.map((job) => [job.variables.order, job.variables.loopCounter])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect((await engine.instance(id))?.variables.receipts).toEqual(['paid-a', 'paid-b', 'paid-c']);
    expect(new Set(seen.map((job) => job.idempotencyKey)).size).toBe(3);
  });

  it('an empty collection completes at once with an empty output collection', async () => {
    const xml = model(
      `<bpmn:serviceTask id="each">${CHARGE}${loop('', 'inputCollection="=[]" inputElement="x" outputCollection="out" outputElement="=x"')}</bpmn:serviceTask>`,
    );
    const { engine, id } = await run(xml, {}, { charge: () => ({}) });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.out).toEqual([]);
  });

  it('a cardinality runs that many bodies', async () => {
    let calls = 0;
    const xml = model(
      `<bpmn:serviceTask id="each">${CHARGE}<bpmn:multiInstanceLoopCharacteristics><bpmn:loopCardinality>=2 + 1</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics></bpmn:serviceTask>`,
    );
    const { engine, id } = await run(xml, {}, { charge: () => void calls++ });
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toBe(3);
  });
});

describe('parallel multi-instance user tasks', () => {
  const USERS = model(
    `<bpmn:userTask id="each">${loop('', 'inputCollection="=reviewers" inputElement="reviewer" outputCollection="votes" outputElement="=vote"')}</bpmn:userTask>`,
  );

  it('opens every body at once; outputs land in input order whatever order they complete in', async () => {
    const { engine, id } = await run(USERS, { reviewers: ['ann', 'bob', 'cy'] });
    const waiting = await engine.settled(id);
    expect(waiting.status).toBe('waiting');
    const tasks = waiting.status === 'waiting' ? waiting.userTasks : [];
    expect(tasks.map((task) => task.variables.reviewer)).toEqual(['ann', 'bob', 'cy']);
    for (const index of [2, 0, 1]) {
      await engine.completeUserTask(tasks[index]!.id, { vote: `vote-${String(tasks[index]!.variables.reviewer)}` });
    }
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.votes).toEqual(['vote-ann', 'vote-bob', 'vote-cy']);
  });

  it('a completion condition ends it early, cancelling the open bodies; their outputs are null', async () => {
    const xml = model(
      `<bpmn:userTask id="each">${loop('', 'inputCollection="=reviewers" inputElement="reviewer" outputCollection="votes" outputElement="=vote"', '<bpmn:completionCondition>=numberOfCompletedInstances &gt;= 2</bpmn:completionCondition>')}</bpmn:userTask>`,
    );
    const { engine, id } = await run(xml, { reviewers: ['ann', 'bob', 'cy'] });
    const waiting = await engine.settled(id);
    const tasks = waiting.status === 'waiting' ? waiting.userTasks : [];
    await engine.completeUserTask(tasks[1]!.id, { vote: 'yes' });
    await engine.completeUserTask(tasks[0]!.id, { vote: 'no' });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.votes).toEqual(['no', 'yes', null]);
  });

  it('the completion condition sees the counters, the completing body no longer active', async () => {
    const xml = model(
      `<bpmn:userTask id="each">${loop('', 'inputCollection="=[1, 2, 3]" inputElement="n" outputCollection="seen" outputElement="=n"', '<bpmn:completionCondition>=numberOfActiveInstances = 1</bpmn:completionCondition>')}</bpmn:userTask>`,
    );
    const { engine, id } = await run(xml, {});
    const waiting = await engine.settled(id);
    const tasks = waiting.status === 'waiting' ? waiting.userTasks : [];
    await engine.completeUserTask(tasks[0]!.id);
    expect((await engine.settled(id)).status).toBe('waiting');
    await engine.completeUserTask(tasks[1]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.seen).toEqual([1, 2, null]);
  });

  it('the completion condition sees all four counters, numberOfTerminatedInstances derived (none yet)', async () => {
    const condition =
      '=numberOfInstances = 3 and numberOfCompletedInstances = 1 and numberOfActiveInstances = 2 and numberOfTerminatedInstances = 0';
    const xml = model(
      `<bpmn:userTask id="each">${loop('', 'inputCollection="=[1, 2, 3]" inputElement="n" outputCollection="seen" outputElement="=n"', `<bpmn:completionCondition>${condition}</bpmn:completionCondition>`)}</bpmn:userTask>`,
    );
    const { engine, id } = await run(xml, {});
    const waiting = await engine.settled(id);
    const tasks = waiting.status === 'waiting' ? waiting.userTasks : [];
    await engine.completeUserTask(tasks[2]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.seen).toEqual([null, null, 3]);
  });

  it('an interrupting timer boundary on the activity cancels every body', async () => {
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:userTask id="each">${loop('', 'inputCollection="=[1, 2]" inputElement="n"')}</bpmn:userTask>
      <bpmn:boundaryEvent id="late" attachedToRef="each"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
      <bpmn:endEvent id="end" /><bpmn:endEvent id="timedOut" />
      ${chain('start', 'each', 'end')}${flow('f_late', 'late', 'timedOut')}`);
    const engine = new Engine({ repository: createMemoryRepository() });
    await engine.deploy(xml);
    const id = await engine.start('p');
    const waiting = await engine.settled(id, { timers: 'wait' });
    expect(waiting.status).toBe('completed');
    const view = await engine.instance(id);
    expect(view?.userTasks).toEqual([]);
    expect(view?.history.map((entry) => entry.node)).toContain('timedOut');
  });
});

describe('multi-instance sub-processes', () => {
  const SUB = (boundary: string) =>
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:subProcess id="each">
        ${loop('', 'inputCollection="=[1, 2, 3]" inputElement="n" outputCollection="doubled" outputElement="=twice"')}
        <bpmn:startEvent id="inner-start" />
        <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
        <bpmn:endEvent id="inner-end" />
        ${chain('inner-start', 'work', 'inner-end')}
      </bpmn:subProcess>
      ${boundary}
      <bpmn:endEvent id="end" />
      ${chain('start', 'each', 'end')}`);

  it('each body is its own scope: inner work sees its item, outputs in order', async () => {
    const xml = SUB('');
    const { engine, id } = await run(xml, {}, { work: (job: Job) => ({ twice: Number(job.variables.n) * 2 }) });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.doubled).toEqual([2, 4, 6]);
  });

  it('a BPMN error from one body is caught by the boundary on the activity, ending every body', async () => {
    const xml = SUB(
      `<bpmn:boundaryEvent id="failed" attachedToRef="each"><bpmn:errorEventDefinition errorRef="boom" /></bpmn:boundaryEvent><bpmn:endEvent id="handled" />${flow('f_failed', 'failed', 'handled')}`,
    ).replace('<bpmn:process', '<bpmn:error id="boom" errorCode="BOOM" /><bpmn:process');
    const { BpmnError } = await import('../src/common/errors.js');
    let calls = 0;
    const { engine, id } = await run(
      xml,
      {},
      {
        work: (job: Job) => {
          calls++;
          if (job.variables.n === 2) throw new BpmnError('BOOM');
          return new Promise(() => {});
        },
      },
    );
    const settled = await engine.settled(id);
    expect(settled.status).toBe('completed');
    const view = await engine.instance(id);
    expect(view?.history.map((entry) => entry.node)).toContain('handled');
    expect(view?.history.map((entry) => entry.node)).not.toContain('end');
    expect(calls).toBe(3);
  });
});

describe('standard loops', () => {
  const POLL = (attrs: string, condition: string) =>
    model(
      `<bpmn:serviceTask id="each">${ext('<zeebe:taskDefinition type="poll" />')}<bpmn:standardLoopCharacteristics ${attrs}>${condition ? `<bpmn:loopCondition>${condition}</bpmn:loopCondition>` : ''}</bpmn:standardLoopCharacteristics></bpmn:serviceTask>`,
    );
  const poll = (calls: number[]) => ({
    poll: (job: Job) => {
      calls.push(Number(job.variables.loopCounter));
      return { ready: Number(job.variables.loopCounter) >= 3 };
    },
  });

  it('runs a pass, then another while the condition holds, each pass with its loopCounter', async () => {
    const calls: number[] = [];
    const { engine, id } = await run(POLL('', '=not(ready)'), {}, poll(calls));
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual([1, 2, 3]);
    expect((await engine.instance(id))?.variables.ready).toBe(true);
  });

  it('loopMaximum caps the passes', async () => {
    const calls: number[] = [];
    const { engine, id } = await run(POLL('loopMaximum="2"', '=not(ready)'), {}, poll(calls));
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual([1, 2]);
  });

  it('testBefore checks the condition before the first pass too: false runs no pass', async () => {
    const calls: number[] = [];
    const { engine, id } = await run(POLL('testBefore="true"', '=not(ready)'), { ready: true }, poll(calls));
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual([]);
  });
});

/** Open `body` as the engine opens a stored document: sealed as instance x at seq 0. */
function openSealed(body: CheckpointBody) {
  const unsealed = { instanceId: 'x', seq: 0, parentSeq: null, definitionDigest: 'd', capturedAt: 0, body };
  return openState(sealCheckpoint(unsealed).bytes, { instanceId: 'x', seq: 0 });
}

describe('bodies in the checkpoint document', () => {
  const PARKED = model(
    `<bpmn:userTask id="each">${loop('', 'inputCollection="=items" inputElement="item" outputCollection="out" outputElement="=item"')}</bpmn:userTask>`,
  );

  async function parked() {
    const repository = createMemoryRepository();
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(PARKED);
    const id = await engine.start('p', { variables: { items: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }] } });
    return { repository, engine, id };
  }

  async function parkedWith(xml: string, variables: Record<string, unknown>) {
    const repository = createMemoryRepository();
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(xml);
    const id = await engine.start('p', { variables });
    expect((await engine.settled(id)).status).toBe('waiting');
    const { body } = openCheckpoint((await repository.get(id))!.bytes, { instanceId: id });
    return { body, engine };
  }

  async function documentScopes(repository: Repository, id: string) {
    const stored = await repository.get(id);
    return openCheckpoint(stored!.bytes, { instanceId: id }).body.scopes;
  }

  it('a body its host derives whole is written as its path, and opens as the same record', async () => {
    const { repository, engine, id } = await parked();
    const before = await engine.instance(id);
    expect(await documentScopes(repository, id)).toEqual([
      expect.objectContaining({ path: '/' }),
      '/each[0]',
      '/each[1]',
      '/each[2]',
    ]);
    await engine.close();
    const restored = new Engine({ repository, handlers: {} });
    expect((await restored.instance(id))?.scopes).toEqual(before?.scopes);
    const settled = await restored.settled(id);
    expect(settled.status === 'waiting' && settled.userTasks.map((task) => task.variables.item)).toEqual([
      { sku: 'a' },
      { sku: 'b' },
      { sku: 'c' },
    ]);
  });

  it('a body something wrote into keeps its whole record, in its place', async () => {
    // Each body's inner work writes the body's own item (the variable is the body's), then waits.
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:subProcess id="each">
        ${loop('', 'inputCollection="=[1, 2]" inputElement="n"')}
        <bpmn:startEvent id="inner-start" />
        <bpmn:scriptTask id="bump">${ext('<zeebe:script expression="=if n = 2 then 20 else n" resultVariable="n" />')}</bpmn:scriptTask>
        <bpmn:userTask id="wait" />
        <bpmn:endEvent id="inner-end" />
        ${chain('inner-start', 'bump', 'wait', 'inner-end')}
      </bpmn:subProcess>
      <bpmn:endEvent id="end" />
      ${chain('start', 'each', 'end')}`);
    const repository = createMemoryRepository();
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(xml);
    const id = await engine.start('p');
    await engine.settled(id);
    const scopes = await documentScopes(repository, id);
    // The first body's n is still its item: a path; the second's was written over: a record.
    expect(scopes.map((scope) => (typeof scope === 'string' ? `path ${scope}` : scope.path))).toEqual([
      '/',
      'path /each[0]',
      '/each[1]',
      '/each[0]/each',
      '/each[1]/each',
    ]);
    await engine.close();
    const restored = new Engine({ repository, handlers: {} });
    expect((await restored.instance(id))?.scopes).toMatchObject({ '/each[0]': { n: 1 }, '/each[1]': { n: 20 } });
  });

  it('a body track waiting on its user task is written as id@path, its task as a tuple; both open as the same records', async () => {
    const { repository, engine, id } = await parked();
    const stored = (await repository.get(id))!;
    const { body } = openCheckpoint(stored.bytes, { instanceId: id });
    expect(body.tracks.filter((track) => typeof track === 'string')).toEqual([
      expect.stringMatching(/^t\d+@\/each\[0\]$/),
      expect.stringMatching(/^t\d+@\/each\[1\]$/),
      expect.stringMatching(/^t\d+@\/each\[2\]$/),
    ]);
    expect(body.userTasks).toEqual([
      [expect.any(String), expect.any(String), expect.any(Number), null, null],
      [expect.any(String), expect.any(String), expect.any(Number), null, null],
      [expect.any(String), expect.any(String), expect.any(Number), null, null],
    ]);
    const state = new InstanceState(unpackBody(body));
    const [track] = [...state.tracks.values()].filter((t) => t.scopePath === '/each[1]');
    const task = state.userTasks.get((track!.wait as { taskId: string }).taskId);
    expect(track).toEqual({
      id: track!.id,
      scopePath: '/each[1]',
      nodeId: 'each',
      viaFlow: null,
      state: 'waiting',
      attempt: 0,
      wait: { kind: 'userTask', taskId: task!.id },
      locals: null,
      result: null,
    });
    expect(task).toEqual({
      id: task!.id,
      trackId: track!.id,
      nodeId: 'each',
      name: null,
      assignee: null,
      createdAt: expect.any(Number),
    });
    // Written again, the opened state is the very document it was opened from.
    expect(canonicalJson(packBody(state))).toBe(canonicalJson(body));
    await engine.close();
  });

  it('a user task keeps its name and assignee in its tuple; a track with locals stays a record', async () => {
    const xml = model(
      `<bpmn:userTask id="each" name="Review">${ext(
        '<zeebe:assignmentDefinition assignee="=item.owner" /><zeebe:ioMapping><zeebe:input source="=item.owner" target="who" /></zeebe:ioMapping>',
      )}${loop('', 'inputCollection="=items" inputElement="item"')}</bpmn:userTask>`,
    );
    const { body, engine } = await parkedWith(xml, { items: [{ owner: 'ann' }, { owner: 'bob' }] });
    expect(body.tracks.every((track) => typeof track !== 'string')).toBe(true);
    expect(body.userTasks).toEqual([
      [expect.any(String), expect.any(String), expect.any(Number), 'Review', 'ann'],
      [expect.any(String), expect.any(String), expect.any(Number), 'Review', 'bob'],
    ]);
    const state = new InstanceState(unpackBody(body));
    expect([...state.userTasks.values()].map((task) => [task.nodeId, task.name, task.assignee])).toEqual([
      ['each', 'Review', 'ann'],
      ['each', 'Review', 'bob'],
    ]);
    expect(canonicalJson(packBody(state))).toBe(canonicalJson(body));
    await engine.close();
  });

  it('a user task with candidates stays a record, and so does the track waiting on it', async () => {
    const xml = model(
      `<bpmn:userTask id="each">${ext('<zeebe:assignmentDefinition candidateGroups="leads" />')}${loop('', 'inputCollection="=items" inputElement="item"')}</bpmn:userTask>`,
    );
    const { body, engine } = await parkedWith(xml, { items: [1, 2] });
    expect(body.userTasks).toEqual([
      expect.objectContaining({ nodeId: 'each', candidateGroups: ['leads'] }),
      expect.objectContaining({ nodeId: 'each', candidateGroups: ['leads'] }),
    ]);
    // Their tracks are packed all the same: the task records name them.
    expect(body.tracks.filter((track) => typeof track === 'string')).toHaveLength(2);
    expect(canonicalJson(packBody(new InstanceState(unpackBody(body))))).toBe(canonicalJson(body));
    await engine.close();
  });

  it('a packed track whose body or user task is missing is a corrupt document, named', async () => {
    const { repository, engine, id } = await parked();
    const { body } = openCheckpoint((await repository.get(id))!.bytes, { instanceId: id });
    await engine.close();
    const reopen = (changed: typeof body) => () => openSealed(changed);
    const packed = body.tracks.find((track) => typeof track === 'string') as string;
    const elsewhere = { ...body, tracks: body.tracks.map((t) => (t === packed ? `${packed}9` : t)) };
    expect(reopen(elsewhere)).toThrow(CorruptCheckpointError);
    expect(reopen(elsewhere)).toThrow(`track "${packed}9" names no body with a user task of its own`);
    const taskless = {
      ...body,
      userTasks: body.userTasks.filter(
        (task) => !Array.isArray(task) || `${task[1]}@` !== packed.slice(0, packed.indexOf('@') + 1),
      ),
    };
    expect(reopen(taskless)).toThrow(`track "${packed}" names no body with a user task of its own`);
  });

  it('bodies of two hosts, one after the other, open each with its own host (paths of one length)', async () => {
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:parallelGateway id="fork" />
      <bpmn:userTask id="one">${loop('', 'inputCollection="=[1, 2]" inputElement="a"')}</bpmn:userTask>
      <bpmn:userTask id="two">${loop('', 'inputCollection="=[3, 4, 5]" inputElement="b"')}</bpmn:userTask>
      ${chain('start', 'fork', 'one')}
      <bpmn:sequenceFlow id="to-two" sourceRef="fork" targetRef="two" />`);
    const { body, engine } = await parkedWith(xml, {});
    expect(body.scopes.filter((scope) => typeof scope === 'string')).toEqual([
      '/one[0]',
      '/one[1]',
      '/two[0]',
      '/two[1]',
      '/two[2]',
    ]);
    const state = new InstanceState(unpackBody(body));
    const data = (path: string) => state.scopes.get(path)?.data;
    expect([data('/one[1]'), data('/two[0]'), data('/two[2]')]).toEqual([
      { loopCounter: 2, a: 2 },
      { loopCounter: 1, b: 3 },
      { loopCounter: 3, b: 5 },
    ]);
    expect(state.scopes.get('/two[1]')?.hostTrack).not.toBe(state.scopes.get('/one[1]')?.hostTrack);
    expect(canonicalJson(packBody(state))).toBe(canonicalJson(body));
    await engine.close();
  });

  it('a path that only begins like the body before it is read in full: one that names no body is corrupt', async () => {
    const { repository, engine, id } = await parked();
    const { body } = openCheckpoint((await repository.get(id))!.bytes, { instanceId: id });
    await engine.close();
    for (const path of ['/each[]', '/each[1x]', '/each[1]]', '/each[-1]']) {
      const scopes = body.scopes.map((scope) => (scope === '/each[1]' ? path : scope));
      expect(() => openSealed({ ...body, scopes })).toThrow(`scope "${path}" names no body of a looping activity`);
    }
    // An ordinal too long to add up exactly is read as the path's own digits say, as any other.
    const long = '/each[1234567890123456789]';
    const scopes = body.scopes.map((scope) => (scope === '/each[1]' ? long : scope));
    const tracks = body.tracks.map((track) =>
      typeof track === 'string' && track.endsWith('@/each[1]') ? track.replace('/each[1]', long) : track,
    );
    expect(openSealed({ ...body, scopes, tracks }).scopes.get(long)?.data).toEqual({
      loopCounter: Number(long.slice(6, -1)) + 1,
      item: null,
    });
  });

  it('a path that names no looping activity is a corrupt document, named', () => {
    const state = () =>
      openSealed({
        ...bareBody(),
        scopes: ['/ghost[0]'],
      });
    expect(state).toThrow(CorruptCheckpointError);
    expect(state).toThrow(/scope "\/ghost\[0\]" names no body of a looping activity/);
  });
});

describe('multi-instance output element locals (schema 9)', () => {
  const position = { n: 3, items: [1, 2, 3], element: 'item', next: 0, completed: 0, outputs: {}, conditionMet: false };

  it('should open a body with its output element variable as a local null when the host names one', () => {
    expect(initialBodyData({ ...position, output: 'result' }, 1)).toEqual({ loopCounter: 2, item: 2, result: null });
  });

  it('should open a body of a host entered before schema 9 as it did then, without the local', () => {
    expect(initialBodyData(position, 1)).toEqual({ loopCounter: 2, item: 2 });
  });

  it.each([
    ['=result', { result: null }],
    ['=result.total', { result: null }],
    ['=item', {}],
    ['=loopCounter', {}],
    ['=result + 1', {}],
  ])(
    'should give each body of an outputElement %s the locals %o beside its item and loopCounter',
    async (output, extra) => {
      const xml = model(
        `<bpmn:userTask id="each">${loop('', `inputCollection="=[1]" inputElement="item" outputCollection="out" outputElement="${output}"`)}</bpmn:userTask>`,
      );
      const { engine, id } = await run(xml, {});
      await engine.settled(id);
      const [body] = Object.entries((await engine.instance(id))!.scopes).filter(([path]) => path !== '/');
      expect(body?.[1]).toEqual({ loopCounter: 1, item: 1, ...extra });
    },
  );
});
