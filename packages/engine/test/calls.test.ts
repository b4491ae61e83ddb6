/**
 * Call activities as Zeebe runs them: the child is an instance of its own, linked both ways, started with the
 * caller's variables (or only its inputs), giving its variables back when it completes (or only what the
 * output mappings take); an error or escalation it does not catch is thrown at the call; cancelling the call
 * cancels the child; and each side, restored, checks the other is where it says — loudly when it is not.
 */
import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { RestoreError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { Job } from '../src/index.js';
import {
  boundary,
  chain,
  definitions,
  error,
  errorDefinition,
  escalation,
  escalationDefinition,
  ext,
  flow,
  process,
  timer,
} from './fixtures/bpmn/xml.js';

const called = (attributes: string, inner = '') =>
  `<bpmn:callActivity id="call">${ext(`<zeebe:calledElement ${attributes} />${inner}`)}</bpmn:callActivity>`;

/** The parent `p`: start → call → end, with `extra` elements (boundaries) beside. */
function parent(call: string, extra = '', roots = ''): string {
  return definitions(
    `${roots}${process(`<bpmn:startEvent id="start" />${call}<bpmn:endEvent id="end" />${chain('start', 'call', 'end')}${extra}`)}`,
    'parent-defs',
  );
}

/** A child process `id`: start → `body` (id `work`) → end. */
function child(id: string, body: string, roots = '', definitionsId = `${id}-defs`, processExtensions = ''): string {
  return definitions(
    `${roots}<bpmn:process id="${id}" isExecutable="true">${processExtensions}<bpmn:startEvent id="cs" />${body}<bpmn:endEvent id="ce" />${chain('cs', 'work', 'ce')}</bpmn:process>`,
    definitionsId,
  );
}

const SERVICE = (type: string) =>
  `<bpmn:serviceTask id="work">${ext(`<zeebe:taskDefinition type="${type}" />`)}</bpmn:serviceTask>`;
const USER = '<bpmn:userTask id="work" />';

function engineOn(repository: Repository = createMemoryRepository(), handlers = {}, clock?: VirtualClock): Engine {
  return new Engine({ repository, handlers, backoff: () => 0, ...(clock ? { clock: clock.view() } : {}) });
}

async function childOf(engine: Engine, parentId: string): Promise<string> {
  const [summary] = await engine.instances({ parentId });
  if (!summary) throw new Error(`instance ${parentId} has no child`);
  return summary.instanceId;
}

describe('a call activity starts a child and takes its end', () => {
  it('the child runs with the caller variables, is linked both ways, and its variables come back', async () => {
    const seen: Job[] = [];
    const engine = engineOn(createMemoryRepository(), {
      ship: (job: Job) => {
        seen.push(job);
        return { tracking: `T-${String(job.variables.order)}` };
      },
    });
    await engine.deploy(child('shipping', SERVICE('ship')));
    await engine.deploy(parent(called('processId="shipping"')));
    const id = await engine.start('p', { variables: { order: 'A-1' } });
    expect((await engine.settled(id)).status).toBe('completed');
    expect(seen.map((job) => job.variables.order)).toEqual(['A-1']);
    expect((await engine.instance(id))?.variables).toEqual({ order: 'A-1', tracking: 'T-A-1' });
    const childId = await childOf(engine, id);
    const view = await engine.instance(childId);
    expect(view).toMatchObject({ parentId: id, callNodeId: 'call', status: 'completed', processId: 'shipping' });
    expect((await engine.instances({ rootId: id })).map((s) => s.instanceId).sort()).toEqual([id, childId].sort());
  });

  it('the process id may be a FEEL expression', async () => {
    const engine = engineOn();
    await engine.deploy(child('ship-eu', '<bpmn:task id="work" />'));
    await engine.deploy(parent(called('processId="=&quot;ship-&quot; + region"')));
    const id = await engine.start('p', { variables: { region: 'eu' } });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(await childOf(engine, id)))?.processId).toBe('ship-eu');
  });

  it('propagateAllParentVariables="false": the child gets only the call input mappings', async () => {
    const engine = engineOn();
    await engine.deploy(child('c', USER));
    const inputs = '<zeebe:ioMapping><zeebe:input source="=order" target="ref" /></zeebe:ioMapping>';
    await engine.deploy(parent(called('processId="c" propagateAllParentVariables="false"', inputs)));
    const id = await engine.start('p', { variables: { order: 'A-1', secret: 's' } });
    await engine.settled(id);
    expect((await engine.instance(await childOf(engine, id)))?.variables).toEqual({ ref: 'A-1' });
  });

  it('by default the child also gets the inputs beside every caller variable', async () => {
    const engine = engineOn();
    await engine.deploy(child('c', USER));
    const inputs = '<zeebe:ioMapping><zeebe:input source="=order" target="ref" /></zeebe:ioMapping>';
    await engine.deploy(parent(called('processId="c"', inputs)));
    const id = await engine.start('p', { variables: { order: 'A-1' } });
    await engine.settled(id);
    expect((await engine.instance(await childOf(engine, id)))?.variables).toEqual({ order: 'A-1', ref: 'A-1' });
  });

  it('propagateAllChildVariables="false": nothing comes back but what the outputs map', async () => {
    const engine = engineOn(createMemoryRepository(), { work: () => ({ a: 1, b: 2 }) });
    await engine.deploy(child('c', SERVICE('work')));
    await engine.deploy(
      parent(called('processId="c" propagateAllChildVariables="false"')).replace('id="p"', 'id="none"'),
    );
    const outputs = '<zeebe:ioMapping><zeebe:output source="=a" target="fromChild" /></zeebe:ioMapping>';
    await engine.deploy(parent(called('processId="c" propagateAllChildVariables="false"', outputs)));
    const none = await engine.start('none', { variables: { x: 0 } });
    expect((await engine.settled(none)).status).toBe('completed');
    expect((await engine.instance(none))?.variables).toEqual({ x: 0 });
    const mapped = await engine.start('p', { variables: { x: 0 } });
    expect((await engine.settled(mapped)).status).toBe('completed');
    expect((await engine.instance(mapped))?.variables).toEqual({ x: 0, fromChild: 1 });
  });

  it('a user task of the child is part of the parent settled state and completes through the child', async () => {
    const engine = engineOn();
    await engine.deploy(child('c', USER));
    await engine.deploy(parent(called('processId="c"')));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    const childId = await childOf(engine, id);
    expect(settled.calls).toEqual([{ elementId: 'call', instanceId: childId }]);
    expect(settled.userTasks.map((task) => task.id)).toEqual([`${childId}/${settled.userTasks[0]?.id.split('/')[1]}`]);
    await engine.completeUserTask(settled.userTasks[0]!.id, { approved: true });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables).toEqual({ approved: true });
  });
});

describe('which version a call starts', () => {
  const v = (n: number, tag = '') =>
    child(
      'c',
      `<bpmn:scriptTask id="work">${ext(`<zeebe:script expression="=${n}" resultVariable="version" />`)}</bpmn:scriptTask>`,
      '',
      `c-defs-${n}`,
      tag ? ext(`<zeebe:versionTag value="${tag}" />`) : '',
    );

  it('latest (the default): the latest deployed version, from any deployment', async () => {
    const engine = engineOn();
    await engine.deploy(v(1));
    await engine.deploy(parent(called('processId="c"')));
    await engine.deploy(v(2));
    const id = await engine.start('p');
    await engine.settled(id);
    expect((await engine.instance(id))?.variables.version).toBe(2);
  });

  it('deployment: the version deployed with the caller', async () => {
    const engine = engineOn();
    const both = definitions(
      `${process(`<bpmn:startEvent id="start" />${called('processId="c" bindingType="deployment"')}<bpmn:endEvent id="end" />${chain('start', 'call', 'end')}`)}
       <bpmn:process id="c" isExecutable="true"><bpmn:startEvent id="cs" /><bpmn:scriptTask id="work">${ext('<zeebe:script expression="=0" resultVariable="version" />')}</bpmn:scriptTask><bpmn:endEvent id="ce" />${chain('cs', 'work', 'ce')}</bpmn:process>`,
      'together',
    );
    await engine.deploy(both);
    await engine.deploy(v(2));
    const id = await engine.start('p');
    await engine.settled(id);
    expect((await engine.instance(id))?.variables.version).toBe(0);
  });

  it('deployment: the version of another file deployed together with the caller (deployTogether)', async () => {
    const engine = engineOn();
    await engine.deployTogether([v(1), parent(called('processId="c" bindingType="deployment"'))]);
    await engine.deploy(v(2));
    const id = await engine.start('p');
    await engine.settled(id);
    expect((await engine.instance(id))?.variables.version).toBe(1);
  });

  it('deployment: a caller deployed alone finds no process of another file, an incident', async () => {
    const engine = engineOn();
    await engine.deploy(v(1));
    await engine.deploy(parent(called('processId="c" bindingType="deployment"')));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    expect(settled.status === 'waiting' && settled.incidents).toEqual([
      expect.objectContaining({
        nodeId: 'call',
        kind: 'call-failed',
        message: expect.stringContaining('no process "c@'),
      }),
    ]);
  });

  it('versionTag: the latest version with that zeebe:versionTag', async () => {
    const engine = engineOn();
    await engine.deploy(v(1, 'stable'));
    await engine.deploy(v(2, 'next'));
    await engine.deploy(parent(called('processId="c" bindingType="versionTag" versionTag="stable"')));
    const id = await engine.start('p');
    await engine.settled(id);
    expect((await engine.instance(id))?.variables.version).toBe(1);
  });

  it('a process that is not deployed is an incident on the call; retried once deployed, it runs', async () => {
    const engine = engineOn();
    await engine.deploy(parent(called('processId="later"')));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected an incident');
    expect(settled.incidents).toEqual([
      expect.objectContaining({
        nodeId: 'call',
        kind: 'call-failed',
        message: expect.stringContaining('no process "later"'),
      }),
    ]);
    expect(await engine.instances({ parentId: id })).toEqual([]);
    await engine.deploy(child('later', '<bpmn:task id="work" />'));
    await engine.retryIncident(settled.incidents[0]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
  });

  it('a process id that evaluates to no string is an incident naming the attribute', async () => {
    const engine = engineOn();
    await engine.deploy(parent(called('processId="=missing"')));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected an incident');
    expect(settled.incidents[0]?.message).toMatch(/zeebe:calledElement processId "=missing" evaluated to null/);
  });
});

describe('errors, escalations and cancellation cross the call', () => {
  const ROOTS = `${error('Err_1', 'NO_STOCK')}${escalation('Esc_1', 'LATE')}`;

  it('an error the child does not catch is caught by a boundary on the call; the child is terminated', async () => {
    const engine = engineOn();
    const childXml = child(
      'c',
      `<bpmn:task id="work" /><bpmn:endEvent id="fail">${errorDefinition('Err_1')}</bpmn:endEvent>`,
      ROOTS,
    ).replace(chain('cs', 'work', 'ce'), chain('cs', 'work', 'fail'));
    await engine.deploy(childXml);
    await engine.deploy(
      parent(
        called('processId="c"'),
        `${boundary('caught', 'call', errorDefinition('Err_1'))}<bpmn:endEvent id="failed" />${flow('fc', 'caught', 'failed')}`,
        ROOTS,
      ),
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    const view = await engine.instance(id);
    expect(view?.history.map((entry) => entry.node)).toContain('failed');
    expect(view?.history.map((entry) => entry.node)).not.toContain('end');
    expect((await engine.instance(await childOf(engine, id)))?.status).toBe('terminated');
  });

  it('an error nobody catches stays an incident in the child, and the parent waits on it', async () => {
    const engine = engineOn();
    const childXml = child('c', `<bpmn:endEvent id="work">${errorDefinition('Err_1')}</bpmn:endEvent>`, ROOTS).replace(
      chain('cs', 'work', 'ce'),
      chain('cs', 'work'),
    );
    await engine.deploy(childXml);
    await engine.deploy(parent(called('processId="c"'), '', ROOTS));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    expect(settled.incidents).toEqual([expect.objectContaining({ kind: 'uncaught-error', nodeId: 'work' })]);
    expect(settled.incidents[0]?.id.startsWith(`${await childOf(engine, id)}/`)).toBe(true);
  });

  it('an escalation reaches a non-interrupting boundary on the call; the child goes on', async () => {
    const engine = engineOn();
    const body = `<bpmn:intermediateThrowEvent id="work">${escalationDefinition('Esc_1')}</bpmn:intermediateThrowEvent>`;
    const childXml = child('c', `${body}<bpmn:userTask id="wait" />`, ROOTS).replace(
      chain('cs', 'work', 'ce'),
      chain('cs', 'work', 'wait', 'ce'),
    );
    await engine.deploy(childXml);
    const extra = `${boundary('late', 'call', escalationDefinition('Esc_1'), 'cancelActivity="false"')}<bpmn:userTask id="chase" />${flow('fl', 'late', 'chase')}`;
    await engine.deploy(parent(called('processId="c"'), extra, ROOTS));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    expect(settled.userTasks.map((task) => task.elementId).sort()).toEqual(['chase', 'wait']);
    expect((await engine.instance(await childOf(engine, id)))?.status).toBe('running');
  });

  it('an interrupting timer on the call cancels the child', async () => {
    const clock = new VirtualClock();
    const engine = engineOn(createMemoryRepository(), {}, clock);
    await engine.deploy(child('c', USER));
    const extra = `${boundary('slow', 'call', timer('timeDuration', 'PT1H'))}<bpmn:endEvent id="gaveUp" />${flow('fs', 'slow', 'gaveUp')}`;
    await engine.deploy(parent(called('processId="c"'), extra));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    clock.advanceTo(settled.timers[0]!.dueAt);
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(await childOf(engine, id)))?.status).toBe('terminated');
  });

  it('cancelling the parent cancels the child; a child is not cancelled on its own', async () => {
    const engine = engineOn();
    await engine.deploy(child('c', USER));
    await engine.deploy(parent(called('processId="c"')));
    const id = await engine.start('p');
    await engine.settled(id);
    const childId = await childOf(engine, id);
    await expect(engine.cancel(childId)).rejects.toThrow(/was called by instance .* cancel the instance at the root/);
    await engine.cancel(id);
    await engine.settled(id);
    expect((await engine.settled(childId)).status).toBe('terminated');
  });
});

describe('multi-instance call activities', () => {
  it('parallel: a child per item, outputs in input order whatever order the children finish in', async () => {
    const engine = engineOn();
    await engine.deploy(child('c', USER));
    const mi = `<bpmn:multiInstanceLoopCharacteristics>${ext('<zeebe:loopCharacteristics inputCollection="=items" inputElement="item" outputCollection="results" outputElement="=answer" />')}</bpmn:multiInstanceLoopCharacteristics>`;
    await engine.deploy(
      parent(`<bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="c" />')}${mi}</bpmn:callActivity>`),
    );
    const id = await engine.start('p', { variables: { items: ['a', 'b', 'c'] } });
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    expect(settled.calls).toHaveLength(3);
    const tasks = await Promise.all(
      settled.userTasks.map(async (task) => ({ task, item: (await engine.instance(task.instanceId))?.variables.item })),
    );
    for (const { task, item } of tasks.reverse())
      await engine.completeUserTask(task.id, { answer: `${String(item)}!` });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables.results).toEqual(['a!', 'b!', 'c!']);
    expect(await engine.instances({ parentId: id })).toHaveLength(3);
  });
});

describe('restoring a call tree', () => {
  async function parked(repository: Repository) {
    const engine = engineOn(repository);
    await engine.deploy(child('c', USER));
    await engine.deploy(parent(called('processId="c"')));
    const id = await engine.start('p');
    await engine.settled(id);
    const childId = await childOf(engine, id);
    await engine.close();
    return { id, childId };
  }

  it('both come back, re-linked: the child completes, the parent resumes, no second child', async () => {
    const repository = createMemoryRepository();
    const { id, childId } = await parked(repository);
    const engine = engineOn(repository);
    const report = await engine.recover();
    expect(report.failed).toEqual([]);
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    await engine.completeUserTask(settled.userTasks[0]!.id, { ok: 1 });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instances({ parentId: id })).map((s) => s.instanceId)).toEqual([childId]);
  });

  it('restoring only the parent brings its running child back with it', async () => {
    const repository = createMemoryRepository();
    const { id } = await parked(repository);
    const engine = engineOn(repository);
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the parent to wait');
    await engine.completeUserTask(settled.userTasks[0]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
  });

  it('a parent whose child record is gone fails loudly; the rest of the engine starts', async () => {
    const repository = createMemoryRepository();
    const { id, childId } = await parked(repository);
    const other = await parked(repository);
    await repository.delete(childId);
    const engine = engineOn(repository);
    const report = await engine.recover();
    expect(report.failed.map((failure) => failure.instanceId)).toEqual([id]);
    expect(report.failed[0]?.error).toBeInstanceOf(RestoreError);
    expect(report.failed[0]?.error.message).toMatch(new RegExp(`waits on instance ${childId}, which is not stored`));
    expect(report.restored.sort()).toEqual([other.id, other.childId].sort());
  });

  it('a child whose parent record is gone fails loudly and never runs', async () => {
    const repository = createMemoryRepository();
    const { id, childId } = await parked(repository);
    await repository.delete(id);
    const engine = engineOn(repository);
    const report = await engine.recover();
    expect(report.failed.map((failure) => failure.instanceId)).toEqual([childId]);
    expect(report.failed[0]?.error.message).toMatch(
      /which is not stored; a called child never runs without its parent/,
    );
  });
});
