import { describe, expect, it } from 'vitest';
import { chain, ext, flow, withRoots } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

/**
 * start → split → (a: user task | b: user task) → join → sub (review inside, a timer boundary on sub) → done → end;
 * also a message catch behind an event-based gateway, reachable only from `gw`.
 */
const MODEL = withRoots(
  '<bpmn:message id="m" name="ping"><bpmn:extensionElements><zeebe:subscription correlationKey="=&quot;k&quot;" /></bpmn:extensionElements></bpmn:message>',
  `<bpmn:startEvent id="start" />
  <bpmn:parallelGateway id="split" />
  <bpmn:userTask id="a" /><bpmn:userTask id="b" />
  <bpmn:parallelGateway id="join" />
  <bpmn:subProcess id="sub">
    ${ext('<zeebe:ioMapping><zeebe:input source="=&quot;mapped&quot;" target="inner" /></zeebe:ioMapping>')}
    <bpmn:startEvent id="sub-start" />
    <bpmn:userTask id="review" />
    <bpmn:endEvent id="sub-end" />
    ${chain('sub-start', 'review', 'sub-end')}
  </bpmn:subProcess>
  <bpmn:boundaryEvent id="late" attachedToRef="sub"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
  <bpmn:endEvent id="late-end" />
  <bpmn:userTask id="done" />
  <bpmn:endEvent id="end" />
  <bpmn:eventBasedGateway id="gw" />
  <bpmn:intermediateCatchEvent id="ping"><bpmn:messageEventDefinition messageRef="m" /></bpmn:intermediateCatchEvent>
  ${flow('s1', 'start', 'split')}${flow('s2', 'split', 'a')}${flow('s3', 'split', 'b')}
  ${flow('s4', 'a', 'join')}${flow('s5', 'b', 'join')}${flow('s6', 'join', 'sub')}
  ${flow('s7', 'sub', 'done')}${flow('s8', 'done', 'end')}${flow('s9', 'late', 'late-end')}
  <bpmn:intermediateCatchEvent id="nap"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
  ${flow('s10', 'gw', 'ping')}${flow('s11', 'ping', 'end')}${flow('s12', 'gw', 'nap')}${flow('s13', 'nap', 'end')}`,
);

async function atTheSplit() {
  const engine = await engineWith(MODEL);
  const id = await engine.start('p');
  await engine.settled(id);
  const activation = async (elementId: string) =>
    (await engine.instance(id))!.elementInstances.find((one) => one.elementId === elementId)!;
  return { engine, id, activation };
}

describe('engine.modifyInstance', () => {
  it('should terminate one branch of a parallel split and leave the other running', async () => {
    const { engine, id, activation } = await atTheSplit();

    await engine.modifyInstance(id, { terminate: [(await activation('b')).id] });

    const view = (await engine.instance(id))!;
    expect(view.status).toBe('running');
    expect(view.userTasks.map((task) => task.elementId)).toEqual(['a']);
  });

  it('should move a token into a sub-process that is not active, creating it without its start event or input mappings, with its boundary event waiting', async () => {
    const { engine, id, activation } = await atTheSplit();

    await engine.modifyInstance(id, {
      terminate: [(await activation('a')).id, (await activation('b')).id],
      activate: [{ elementId: 'review', variables: [{ scopeId: 'sub', variables: { given: 1 } }] }],
    });

    const view = (await engine.instance(id))!;
    expect(view.userTasks.map((task) => task.elementId)).toEqual(['review']);
    expect(view.userTasks[0]!.variables).toEqual({ given: 1 });
    expect(view.elementInstances.map((one) => one.elementId).sort()).toEqual(['review', 'sub']);
    const settled = await engine.settled(id);
    expect(settled.status === 'waiting' && settled.timers.map((timer) => timer.elementId)).toEqual(['late']);
    expect(view.history.map((entry) => entry.node)).not.toContain('sub-start');
    // It goes on from there as if it had come the usual way.
    await engine.completeUserTask(view.userTasks[0]!.id);
    await engine.settled(id);
    expect((await engine.instance(id))!.userTasks.map((task) => task.elementId)).toEqual(['done']);
  });

  it('should give the activated element its own variables, under its input mappings', async () => {
    const { engine, id, activation } = await atTheSplit();

    await engine.modifyInstance(id, {
      terminate: [(await activation('a')).id],
      activate: [
        {
          elementId: 'sub',
          variables: [{ scopeId: 'sub', variables: { inner: 'given', extra: 2 } }, { variables: { top: 3 } }],
        },
      ],
    });

    const view = (await engine.instance(id))!;
    const review = view.userTasks.find((task) => task.elementId === 'review')!;
    expect(review.variables).toMatchObject({ inner: 'mapped', extra: 2, top: 3 });
    expect(view.variables).toEqual({ top: 3 });
  });

  it('should terminate the instance when the last element instance goes and nothing is activated', async () => {
    const { engine, id, activation } = await atTheSplit();

    await engine.modifyInstance(id, { terminate: [(await activation('a')).id, (await activation('b')).id] });

    expect((await engine.instance(id))!.status).toBe('terminated');
  });

  it('should refuse, naming the element and the rule, and change nothing', async () => {
    const { engine, id, activation } = await atTheSplit();
    const before = await engine.instance(id);
    const refusals: [Parameters<typeof engine.modifyInstance>[1], RegExp][] = [
      [{ activate: [{ elementId: 'start' }] }, /"start": a start event is where a scope begins/],
      [{ activate: [{ elementId: 'late' }] }, /"late": a boundary event happens to its activity/],
      [{ activate: [{ elementId: 's2' }] }, /"s2": it is a sequence flow/],
      [{ activate: [{ elementId: 'ping' }] }, /"ping": an event after an event-based gateway/],
      [{ activate: [{ elementId: 'nope' }] }, /"nope": the process has no such element/],
      [{ terminate: ['/:nope:0'] }, /no active element instance "\/:nope:0"/],
      [
        { activate: [{ elementId: 'a', variables: [{ scopeId: 'b', variables: { x: 1 } }] }] },
        /variables for "b", which is neither the element nor one of its containers/,
      ],
      [
        { activate: [{ elementId: 'review', ancestorElementInstanceId: (await activation('a')).id }] },
        /its ancestor .* is not an active instance of a container/,
      ],
      [{ activate: [{ elementId: 'a' }], terminate: ['/:gone:0'] }, /no active element instance/],
    ];

    for (const [instructions, message] of refusals) {
      await expect(engine.modifyInstance(id, instructions), JSON.stringify(instructions)).rejects.toThrow(message);
    }
    await expect(engine.modifyInstance(id, {})).rejects.toThrow(/give elements to activate/);
    expect(await engine.instance(id)).toEqual(before);
  });

  it('should refuse an activation whose container has several active instances unless an ancestor says which', async () => {
    const { engine, id, activation } = await atTheSplit();
    await engine.modifyInstance(id, { activate: [{ elementId: 'sub' }, { elementId: 'sub' }] });
    const subs = (await engine.instance(id))!.elementInstances.filter((one) => one.elementId === 'sub');
    expect(subs).toHaveLength(2);

    await expect(engine.modifyInstance(id, { activate: [{ elementId: 'review' }] })).rejects.toThrow(
      /container "sub" has 2 active instances; say in which with an ancestor element instance/,
    );
    await engine.modifyInstance(id, { activate: [{ elementId: 'review', ancestorElementInstanceId: subs[1]!.id }] });

    const reviews = (await engine.instance(id))!.userTasks.filter((task) => task.elementId === 'review');
    expect(reviews).toHaveLength(3);
    expect((await activation('a')).elementId).toBe('a');
  });

  it('should change nothing when given again under the operation id it was applied with', async () => {
    const { engine, id } = await atTheSplit();

    await engine.modifyInstance(id, { activate: [{ elementId: 'done' }], operationId: 'op-1' });
    await engine.modifyInstance(id, { activate: [{ elementId: 'done' }], operationId: 'op-1' });

    const view = (await engine.instance(id))!;
    expect(view.userTasks.map((task) => task.elementId).sort()).toEqual(['a', 'b', 'done']);
    expect(view.received).toContain('op-1');
  });

  it('should refuse an instance that has ended', async () => {
    const { engine, id } = await atTheSplit();
    await engine.cancel(id);

    await expect(engine.modifyInstance(id, { activate: [{ elementId: 'a' }] })).rejects.toThrow(/instance/);
  });
});
