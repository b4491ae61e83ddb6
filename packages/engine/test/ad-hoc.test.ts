import { createMemoryRepository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidStateError, ModelError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { bpmn, ext } from './fixtures/bpmn/xml.js';
import { logging } from './fixtures/listeners.js';
import { engineWith, settledWaiting } from './fixtures/runtime.js';

/** A service task of type `id`. */
function task(id: string): string {
  return `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${id}" />`)}</bpmn:serviceTask>`;
}

/** `start` → ad-hoc sub-process `ah` (attributes, extension content, inner elements) → `end`. */
function adHoc(attributes: string, extension: string, inner: string, after = ''): string {
  return bpmn(`<bpmn:startEvent id="start" />
    <bpmn:adHocSubProcess id="ah" ${attributes}>${extension ? ext(extension) : ''}${inner}</bpmn:adHocSubProcess>
    <bpmn:endEvent id="end" />${after}
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="ah" />
    <bpmn:sequenceFlow id="f2" sourceRef="ah" targetRef="end" />`);
}

function condition(text: string): string {
  return `<bpmn:completionCondition xsi:type="bpmn:tFormalExpression">${text}</bpmn:completionCondition>`;
}

describe('activating elements', () => {
  it('should activate the elements its activeElementsCollection names, each once, collect their outputs and complete when none is left', async () => {
    // given an ad-hoc sub-process of three tasks, one of them followed by a script, collecting `out`
    const { calls, handlers } = logging(['a', 'b', 'c'], { a: () => ({ out: 'A' }), b: () => ({ out: 10 }) });
    const xml = adHoc(
      '',
      '<zeebe:adHoc activeElementsCollection="=toDo" outputCollection="results" outputElement="=out" />',
      `${task('a')}${task('b')}${task('c')}<bpmn:scriptTask id="s">${ext('<zeebe:script expression="=out + 1" resultVariable="out" />')}</bpmn:scriptTask><bpmn:sequenceFlow id="bs" sourceRef="b" targetRef="s" />`,
    );
    const engine = await engineWith(xml, handlers);

    // when an instance enters it with a and b to do
    const id = await engine.start('p', { variables: { toDo: ['a', 'b'] } });

    // then a and b ran (b's flow on to s), c never; the outputs were collected in completion order
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['a@a', 'b@b']);
    const view = await engine.instance(id);
    expect(view!.variables).toEqual({ toDo: ['a', 'b'], results: ['A', 11] });
    expect(view!.history.map((entry) => entry.node)).toEqual(['start', 'a', 'b', 's', 'ah', 'end']);
  });

  it('should stay open with nothing to activate, and take activations through the API, each with its own variables', async () => {
    // given an ad-hoc sub-process of a user task and a service task, without an activeElementsCollection
    const { jobs, handlers } = logging(['a']);
    const engine = await engineWith(adHoc('', '', `<bpmn:userTask id="u" name="Look" />${task('a')}`), handlers);
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('waiting');
    const [running] = (await engine.instance(id))!.adHocSubProcesses;
    expect(running).toMatchObject({
      elementId: 'ah',
      activatable: [
        { elementId: 'u', elementName: 'Look' },
        { elementId: 'a', elementName: null },
      ],
      active: [],
      activations: 0,
      done: false,
    });

    // when the user task is activated twice, with its own variables each time, and a once
    await engine.activateAdHocElements(running!.id, [{ elementId: 'u', variables: { n: 1 } }]);
    await engine.activateAdHocElements(running!.id, [{ elementId: 'u', variables: { n: 2 } }, 'a']);

    // then each activation has its own task and locals; a ran; the sub-process waits for the two tasks
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected two open tasks');
    expect(settled.userTasks.map((each) => each.variables)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(jobs.map((job) => job.variables)).toEqual([{}]);
    expect((await engine.instance(id))!.adHocSubProcesses[0]).toMatchObject({ active: ['u', 'u'], activations: 3 });

    // and once both are completed, it completes (no condition: nothing left running)
    for (const each of settled.userTasks) await engine.completeUserTask(each.id);
    expect((await engine.settled(id)).status).toBe('completed');
    await expect(engine.activateAdHocElements(running!.id, ['a'])).rejects.toThrow(/no adHocSubProcess/);
  });

  it('should refuse activating an element twice at once, one with incoming flows, and any after it is done', async () => {
    const engine = await engineWith(
      adHoc(
        'cancelRemainingInstances="false"',
        '',
        `${task('a')}${task('b')}${task('c')}<bpmn:sequenceFlow id="ab" sourceRef="a" targetRef="b" />${condition('=true')}`,
      ),
      { c: () => new Promise(() => {}) },
    );
    const id = await engine.start('p');
    await engine.settled(id);
    const [running] = (await engine.instance(id))!.adHocSubProcesses;
    await expect(engine.activateAdHocElements(running!.id, ['a', 'a'])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(engine.activateAdHocElements(running!.id, ['b'])).rejects.toThrow(
      /cannot activate "b": its elements without incoming flows are "a", "c"/,
    );
    expect((await engine.instance(id))!.adHocSubProcesses[0]!.activations).toBe(0);
  });
});

describe('completing', () => {
  it('should complete when its completion condition holds, cancelling the activations still running', async () => {
    // given a fast and a slow task; the condition holds once `fast` is done
    const clock = new VirtualClock();
    const slow = logging(['fast', 'slow'], { fast: () => ({ fastDone: true }) });
    const engine = new Engine({ repository: createMemoryRepository(), handlers: slow.handlers, clock: clock.view() });
    await engine.deploy(
      adHoc(
        '',
        '<zeebe:adHoc activeElementsCollection="=[&quot;fast&quot;, &quot;slow&quot;]" />',
        `${task('fast')}<bpmn:userTask id="slow" />${condition('=fastDone = true')}`,
      ),
    );

    // when an instance runs
    const id = await engine.start('p');

    // then the user task of the slow activation was cancelled with it, and the process completed
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['start', 'fast', 'ah', 'end']);
  });

  it('should wait for the running activations when cancelRemainingInstances is false, taking no new one', async () => {
    // given the same, not cancelling the rest
    const engine = await engineWith(
      adHoc(
        'cancelRemainingInstances="false"',
        '<zeebe:adHoc activeElementsCollection="=[&quot;fast&quot;, &quot;slow&quot;]" />',
        `${task('fast')}<bpmn:userTask id="slow" />${condition('=fastDone = true')}`,
      ),
      { fast: () => ({ fastDone: true }) },
    );
    const id = await engine.start('p');

    // when the condition held, the slow activation still waits, and no activation is taken
    const settled = await engine.settled(id);
    expect(settled.status).toBe('waiting');
    const [running] = (await engine.instance(id))!.adHocSubProcesses;
    expect(running).toMatchObject({ active: ['slow'], done: true });
    await expect(engine.activateAdHocElements(running!.id, ['fast'])).rejects.toBeInstanceOf(InvalidStateError);

    // then completing the slow task completes the ad-hoc sub-process
    if (settled.status !== 'waiting') return;
    await engine.completeUserTask(settled.userTasks[0]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
  });

  it('should keep what its elements write in their activation, and hand on only its output collection or mappings', async () => {
    const engine = await engineWith(
      adHoc(
        '',
        '<zeebe:adHoc activeElementsCollection="=[&quot;a&quot;]" outputCollection="all" outputElement="=secret" /><zeebe:ioMapping><zeebe:output source="=count(all)" target="done" /></zeebe:ioMapping>',
        task('a'),
      ),
      { a: () => ({ secret: 42 }) },
    );
    const id = await engine.start('p', { variables: { kept: 1 } });
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ kept: 1, done: 1 });
  });

  it('should raise an incident for a completion condition that is not true or false, which its retry evaluates again', async () => {
    const engine = await engineWith(
      adHoc('', '<zeebe:adHoc activeElementsCollection="=[&quot;a&quot;]" />', `${task('a')}${condition('=verdict')}`),
      { a: () => ({ verdict: 'maybe' }) },
    );
    const id = await engine.start('p');
    const settled = await settledWaiting(engine, id);
    expect(settled.incidents[0]).toMatchObject({ nodeId: 'ah', kind: 'expression-failed' });
    expect(settled.incidents[0]!.message).toContain('must be true or false, not "maybe"');
    await engine.retryIncident(settled.incidents[0]!.id);
    const again = await engine.settled(id);
    expect(again.status === 'waiting' && again.incidents).toHaveLength(1);
  });

  it('should raise an incident, opening nothing, when its activeElementsCollection names what it cannot activate', async () => {
    const engine = await engineWith(
      adHoc(
        '',
        '<zeebe:adHoc activeElementsCollection="=toDo" />',
        `${task('a')}${task('b')}<bpmn:sequenceFlow id="ab" sourceRef="a" targetRef="b" />`,
      ),
    );
    for (const [toDo, message] of [
      [['a', 'b', 'x'], 'cannot activate "b", "x"'],
      [null, 'it must be a list of element ids'],
    ] as const) {
      const id = await engine.start('p', { variables: { toDo } });
      const settled = await settledWaiting(engine, id);
      expect(settled.incidents[0]!.message).toContain(message);
      expect((await engine.instance(id))!.adHocSubProcesses).toEqual([]);
    }
  });

  it('should cancel its activations when an interrupting boundary event fires', async () => {
    const clock = new VirtualClock();
    const engine = new Engine({ repository: createMemoryRepository(), clock: clock.view() });
    await engine.deploy(
      adHoc(
        '',
        '<zeebe:adHoc activeElementsCollection="=[&quot;wait&quot;]" />',
        '<bpmn:userTask id="wait" />',
        `<bpmn:boundaryEvent id="late" attachedToRef="ah"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
         <bpmn:endEvent id="timedOut" /><bpmn:sequenceFlow id="f3" sourceRef="late" targetRef="timedOut" />`,
      ),
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('waiting');
    clock.advance(3_600_000);
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['start', 'late', 'timedOut']);
  });
});

describe('compensation', () => {
  it('should compensate an activity an activation completed, once the ad-hoc sub-process is done', async () => {
    // given an ad-hoc sub-process booking a room (compensable), then a compensation throw after it
    const { calls, handlers } = logging(['book', 'unbook']);
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:adHocSubProcess id="ah">${ext('<zeebe:adHoc activeElementsCollection="=[&quot;book&quot;]" />')}
        ${task('book')}
        <bpmn:boundaryEvent id="cb" attachedToRef="book"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
        <bpmn:serviceTask id="unbook" isForCompensation="true">${ext('<zeebe:taskDefinition type="unbook" />')}</bpmn:serviceTask>
        <bpmn:association id="as" associationDirection="One" sourceRef="cb" targetRef="unbook" />
      </bpmn:adHocSubProcess>
      <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>
      <bpmn:endEvent id="end" />
      <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="ah" />
      <bpmn:sequenceFlow id="f2" sourceRef="ah" targetRef="undo" />
      <bpmn:sequenceFlow id="f3" sourceRef="undo" targetRef="end" />`);
    const engine = await engineWith(xml, handlers);

    // when an instance runs
    const id = await engine.start('p');

    // then the booking made in the activation was compensated
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['book@book', 'unbook@unbook']);
  });
});

describe('the model', () => {
  it.each([
    ['a start event inside', '<bpmn:startEvent id="s" />', /has no start events/],
    ['an end event inside', `${task('a')}<bpmn:endEvent id="e" />`, /has no end events/],
    ['no activity inside', '<bpmn:intermediateThrowEvent id="t" />', /at least one activity/],
  ])('should refuse %s, as Zeebe does', async (_name, inner, message) => {
    const engine = new Engine({ repository: createMemoryRepository() });
    await expect(engine.deploy(adHoc('', '', inner))).rejects.toThrow(message);
  });

  it('should refuse its job worker implementation by name, and warn that a sequential ordering is not enforced', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    await expect(engine.deploy(adHoc('', '<zeebe:taskDefinition type="agent" />', task('a')))).rejects.toBeInstanceOf(
      ModelError,
    );
    await expect(engine.deploy(adHoc('', '<zeebe:taskDefinition type="agent" />', task('a')))).rejects.toThrow(
      /job worker implementation/,
    );
    const deployed = await engine.deploy(adHoc('ordering="Sequential"', '', task('a')));
    expect(deployed.warnings.map((warning) => warning.message).join()).toContain('ordering="Sequential"');
  });
});
