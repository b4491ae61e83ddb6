/**
 * The static touchpoint list (issue 17): run order, positions, labels, how long each waits, which only
 * some runs reach, which repeat, skipped processes, and the per-process plan the live tracker indexes —
 * proven on small models in `fixtures/touchpoints/`, and as invariants over the MIWG models that compile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/common/errors.js';
import type { Touchpoint } from '../src/common/touchpoint-types.js';
import { compile, type ProcessDef, type ProcessModel } from '../src/model/index.js';
import { touchpointOf } from '../src/touchpoints/declaration.js';
import { processPlan, touchpoints } from '../src/touchpoints/plan.js';
import {
  boundary,
  bpmn,
  chain,
  definitions,
  ext,
  flow,
  linkDefinition,
  message,
  messageDefinition,
  process,
  timer,
  withRoots,
} from './fixtures/bpmn/xml.js';

const fixtures = new URL('./fixtures/touchpoints/', import.meta.url);
const model = (name: string) => compile(readFileSync(new URL(name, fixtures), 'utf8'));
const only = (compiled: ProcessModel) => [...compiled.processes.values()][0] as ProcessDef;
const ids = (list: readonly Touchpoint[]) => list.map((touchpoint) => touchpoint.elementId);
const byId = (list: readonly Touchpoint[], id: string) => list.find((touchpoint) => touchpoint.elementId === id);
const pick = <TKey extends keyof Touchpoint>(list: readonly Touchpoint[], key: TKey) =>
  Object.fromEntries(list.map((touchpoint) => [touchpoint.elementId, touchpoint[key]]));

describe('touchpoints: run order and position', () => {
  it('lists a fork’s branches in document order before the join, and a sub-process’s content in its place', async () => {
    const list = touchpoints(await model('run-order.bpmn'));
    expect(list.map((touchpoint) => [touchpoint.index, touchpoint.position])).toEqual([
      [0, '/review'],
      [1, '/pay'],
      [2, '/notify'],
      [3, '/ship/pack'],
      [4, '/confirm'],
    ]);
  });

  it('describes each touchpoint by its type, mark, name and documentation', async () => {
    const [review, pay, notify, pack] = touchpoints(await model('run-order.bpmn'));
    expect(review).toEqual({
      index: 0,
      processId: 'run-order',
      position: '/review',
      elementId: 'review',
      elementType: 'userTask',
      direction: 'internal',
      kind: 'select',
      via: null,
      label: 'Review the order',
      description: null,
      timeoutS: null,
      conditional: false,
      repeated: false,
      skipped: false,
    });
    expect(pay).toMatchObject({ elementType: 'receiveTask', direction: 'inbound', kind: 'wait', via: 'message' });
    expect(notify).toMatchObject({ elementType: 'sendTask', direction: 'outbound', kind: 'wait', via: 'job' });
    expect(pack).toMatchObject({ label: 'Pack the parcel', description: 'Put everything in one box.' });
  });

  it('puts what a boundary event leads to after the main path, then event sub-processes, then the unreached', async () => {
    const xml = withRoots(
      message('m', 'poke', '=id'),
      `<bpmn:userTask id="orphan" />
      <bpmn:startEvent id="start" /><bpmn:userTask id="work" /><bpmn:userTask id="after" /><bpmn:endEvent id="end" />
      ${boundary('late', 'work', timer('timeDuration', 'PT1M'))}<bpmn:userTask id="chase" /><bpmn:endEvent id="chased" />
      ${chain('start', 'work', 'after', 'end')}${chain('late', 'chase', 'chased')}
      <bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="poked">${messageDefinition('m')}</bpmn:startEvent>
        <bpmn:endEvent id="esp_end" />${chain('poked', 'esp_end')}</bpmn:subProcess>`,
    );
    expect(ids(touchpoints(await compile(xml)))).toEqual(['work', 'after', 'chase', 'poked', 'orphan']);
  });

  it('follows a link throw to its catch', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:userTask id="second" /><bpmn:endEvent id="end" />
      <bpmn:intermediateCatchEvent id="land">${linkDefinition('L')}</bpmn:intermediateCatchEvent>
      <bpmn:userTask id="first" /><bpmn:intermediateThrowEvent id="jump">${linkDefinition('L')}</bpmn:intermediateThrowEvent>
      ${chain('start', 'first', 'jump')}${chain('land', 'second', 'end')}`,
    );
    expect(ids(touchpoints(await compile(xml)))).toEqual(['first', 'second']);
  });

  it('does not descend into a call activity: the called process is another run', async () => {
    const caller = process(
      `<bpmn:startEvent id="start" /><bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="callee" />')}</bpmn:callActivity>
      <bpmn:endEvent id="end" />${chain('start', 'call', 'end')}`,
      'caller',
    );
    const callee = process(
      `<bpmn:startEvent id="s" /><bpmn:userTask id="inner" /><bpmn:endEvent id="e" />${chain('s', 'inner', 'e')}`,
      'callee',
    );
    const compiled = await compile(definitions(`${caller}\n${callee}`));
    expect(touchpoints(compiled, { process: 'caller' })).toEqual([]);
    expect(ids(touchpoints(compiled))).toEqual(['inner']);
  });
});

describe('touchpoints: label and description', () => {
  it('an unresolved expression is null; the mark’s label and description win over name and documentation', async () => {
    const list = touchpoints(await model('waits.bpmn'));
    expect(byId(list, 'decide')).toMatchObject({ label: null, description: 'Decide within the hour.' });
    expect(byId(list, 'answered')).toMatchObject({ label: 'Answer the question', description: null });
    expect(byId(list, 'close')).toMatchObject({ label: 'Close it' });
  });

  it('an element unmarked with enabled="false" is not listed', async () => {
    expect(ids(touchpoints(await model('waits.bpmn')))).toEqual(['decide', 'answered', 'close']);
  });
});

describe('touchpoints: timeoutS', () => {
  it('is an interrupting boundary timer’s duration, or a sibling timer’s after an event-based gateway', async () => {
    expect(pick(touchpoints(await model('waits.bpmn')), 'timeoutS')).toEqual({
      decide: 3600, // PT1H interrupting; the PT5M reminder does not interrupt
      answered: 172_800, // P2D beside it after the gateway
      close: null, // =limit is known only in a run
    });
  });
});

describe('touchpoints: conditional', () => {
  it('only after an exclusive branch, a boundary event or an interrupting boundary’s activity, in an event sub-process', async () => {
    expect(pick(touchpoints(await model('paths.bpmn')), 'conditional')).toEqual({
      approve: true, // one branch of an exclusive gateway
      pick: false, // after the merge, on one branch of a parallel split
      label: false, // the other parallel branch
      check: false, // every run passes it, whatever its boundary does
      ship: true, // its boundary can end the run before
      escalate: true, // after the boundary event
      cancelled: true, // an event sub-process's start
      refund: true, // inside the event sub-process
    });
  });

  it('inside a sub-process that only some runs reach', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="g" default="skip" /><bpmn:endEvent id="end" />
      <bpmn:subProcess id="sub"><bpmn:startEvent id="s" /><bpmn:userTask id="inner" /><bpmn:endEvent id="e" />${chain('s', 'inner', 'e')}</bpmn:subProcess>
      ${flow('f1', 'start', 'g')}${flow('go', 'g', 'sub', '=x')}${flow('skip', 'g', 'end')}${flow('f2', 'sub', 'end')}`,
    );
    expect(touchpoints(await compile(xml))[0]).toMatchObject({ position: '/sub/inner', conditional: true });
  });
});

describe('touchpoints: repeated', () => {
  it('inside a multi-instance or standard loop (its own or a sub-process’s), on a flow cycle, in a non-interrupting event sub-process', async () => {
    expect(pick(touchpoints(await model('repeats.bpmn')), 'repeated')).toEqual({
      sign: true, // multi-instance
      polish: true, // standard loop
      vote: true, // in a multi-instance sub-process
      draft: true, // on the cycle back from the gateway
      publish: false,
      noted: true, // the start of a non-interrupting event sub-process
      read: true,
    });
  });

  it('after a non-interrupting boundary event, which can fire again while its activity runs', async () => {
    const xml = withRoots(
      message('m', 'nudge', '=id'),
      `<bpmn:startEvent id="start" /><bpmn:userTask id="work" /><bpmn:endEvent id="end" />${chain('start', 'work', 'end')}
      ${boundary('nudged', 'work', messageDefinition('m'), 'cancelActivity="false"')}<bpmn:userTask id="answer" /><bpmn:endEvent id="done" />
      ${chain('nudged', 'answer', 'done')}`,
    );
    expect(pick(touchpoints(await compile(xml)), 'repeated')).toEqual({ work: false, answer: true });
  });
});

describe('touchpoints: processes', () => {
  const two = () =>
    compile(
      definitions(
        [
          process(
            `<bpmn:startEvent id="a_s" /><bpmn:userTask id="a_task" /><bpmn:endEvent id="a_e" />${chain('a_s', 'a_task', 'a_e')}`,
            'a',
          ),
          process(
            `<bpmn:startEvent id="b_s" /><bpmn:userTask id="b_task" /><bpmn:endEvent id="b_e" />${chain('b_s', 'b_task', 'b_e')}`,
            'b',
          ),
          process(
            `<bpmn:startEvent id="c_s" /><bpmn:userTask id="c_task" /><bpmn:endEvent id="c_e" />${chain('c_s', 'c_task', 'c_e')}`,
            'c',
            false,
          ),
        ].join('\n'),
      ),
    );

  it('lists every executable process in document order, indexes counting through', async () => {
    expect(touchpoints(await two()).map((touchpoint) => [touchpoint.index, touchpoint.elementId])).toEqual([
      [0, 'a_task'],
      [1, 'b_task'],
    ]);
  });

  it('lists one process on its own, indexes from 0', async () => {
    expect(touchpoints(await two(), { process: 'b' })).toMatchObject([{ index: 0, elementId: 'b_task' }]);
  });

  it('lists skipped processes after the others, marked skipped', async () => {
    const list = touchpoints(await two(), { skip: ['a'] });
    expect(list.map((touchpoint) => [touchpoint.index, touchpoint.elementId, touchpoint.skipped])).toEqual([
      [0, 'b_task', false],
      [1, 'a_task', true],
    ]);
  });

  it('throws NotFoundError for a process the model does not have', async () => {
    const compiled = await two();
    expect(() => touchpoints(compiled, { process: 'nope' })).toThrow(NotFoundError);
    expect(() => touchpoints(compiled, { skip: ['nope'] })).toThrow(/no process "nope"/);
  });
});

describe('processPlan', () => {
  it('is computed once per process, and indexes its touchpoints by element', async () => {
    const process = only(await model('run-order.bpmn'));
    const plan = processPlan(process);
    expect(processPlan(process)).toBe(plan);
    expect([...plan.byElement]).toEqual([
      ['review', 0],
      ['pay', 1],
      ['notify', 2],
      ['pack', 3],
      ['confirm', 4],
    ]);
  });

  it('reachableFrom: a branch reaches what follows it, not what only the other branch does', async () => {
    const plan = processPlan(only(await model('paths.bpmn')));
    const at = (...elementIds: string[]) => new Set(elementIds.map((id) => plan.byElement.get(id)));
    expect(plan.reachableFrom('is_big')).toEqual(at('approve', 'pick', 'label', 'check', 'ship', 'escalate'));
    expect(plan.reachableFrom('small')).toEqual(at('pick', 'label', 'check', 'ship', 'escalate'));
    expect(plan.reachableFrom('no-such-flow')).toEqual(new Set());
  });

  it('reachableFrom: enters the sub-processes on the way, stays in the flow’s container', async () => {
    const plan = processPlan(only(await model('run-order.bpmn')));
    expect([...plan.reachableFrom('f8')].sort()).toEqual([3, 4]);
    expect([...plan.reachableFrom('s1')]).toEqual([3]);
  });
});

describe('touchpoints over the MIWG models that compile', () => {
  const corpus = new URL('./fixtures/touchpoints/miwg/', import.meta.url);
  const files = readdirSync(corpus).filter((name) => name.endsWith('.xml'));

  it('has the copied models', () => {
    expect(files.sort()).toEqual(['A.1.0.xml', 'A.2.0.xml', 'A.4.0.xml', 'A.4.1.xml', 'C.9.2.xml']);
  });

  it.each(files)('%s: every touchpoint once, in a consistent plan', async (file) => {
    const compiled = await compile(readFileSync(new URL(file, corpus), 'utf8'), { allowNonExecutable: true });
    for (const process of compiled.processes.values()) {
      const list = touchpoints(compiled, { process: process.id });
      const plan = processPlan(process);
      expect(list).toEqual(plan.list);
      expect(list.map((touchpoint) => touchpoint.index)).toEqual(list.map((_, index) => index));
      const declared = [...process.nodes.values()].filter((node) => touchpointOf(node)).map((node) => node.id);
      expect(ids(list).sort()).toEqual(declared.sort());
      for (const touchpoint of list) {
        expect(plan.byElement.get(touchpoint.elementId)).toBe(touchpoint.index);
        expect(touchpoint.position.endsWith(`/${touchpoint.elementId}`)).toBe(true);
        expect(touchpoint).toMatchObject(touchpointOf(process.nodes.get(touchpoint.elementId)!) ?? {});
      }
      for (const flowId of process.flows.keys()) {
        for (const index of plan.reachableFrom(flowId)) expect(list[index]).toBeDefined();
      }
    }
  });

  it('C.9.2: the user task with a seven-day boundary timer comes first; its event sub-processes follow, repeated', async () => {
    const compiled = await compile(readFileSync(new URL('C.9.2.xml', corpus), 'utf8'));
    const [first, ...rest] = touchpoints(compiled);
    expect(first).toMatchObject({ elementId: 'UserTask_DecideOnApplication', timeoutS: 604_800, conditional: false });
    expect(rest.length).toBeGreaterThan(0);
    for (const touchpoint of rest) expect(touchpoint).toMatchObject({ conditional: true, repeated: true });
  });
});
