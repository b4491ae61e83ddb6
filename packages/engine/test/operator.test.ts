import { createMemoryRepository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidStateError } from '../src/common/errors.js';
import type { LiveTouchpoint } from '../src/common/touchpoint-types.js';
import { Engine } from '../src/engine.js';
import { answerQuestion, runWithOperator } from '../src/operator.js';
import type { Operator, OperatorAnswer, OperatorQuestion } from '../src/touchpoints/types.js';
import { bpmn, chain, flow } from './fixtures/bpmn/xml.js';

const approval = bpmn(`<bpmn:startEvent id="start" /><bpmn:userTask id="approve" name="Approve the order" />
  <bpmn:boundaryEvent id="late" attachedToRef="approve"><bpmn:timerEventDefinition><bpmn:timeDuration>PT5M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
  <bpmn:exclusiveGateway id="ok" default="f-no" /><bpmn:endEvent id="shipped" /><bpmn:endEvent id="refused" /><bpmn:endEvent id="expired" />
  ${chain('start', 'approve', 'ok')}${flow('f-yes', 'ok', 'shipped', '=approved = true')}${flow('f-no', 'ok', 'refused')}
  ${flow('f-late', 'late', 'expired')}`);

const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function deployed(xml = approval) {
  const clock = new VirtualClock();
  const engine = new Engine({ repository: createMemoryRepository(), clock: clock.view() });
  engines.push(engine);
  await engine.deploy(xml);
  return { engine, clock };
}

/** An operator that records what it was shown and answers from a list. */
function scripted(approve: boolean, answers: OperatorAnswer[]) {
  const briefed: LiveTouchpoint[][] = [];
  const asked: OperatorQuestion[] = [];
  let stopped = 0;
  const operator: Operator = {
    approve: (touchpoints) => {
      briefed.push([...touchpoints]);
      return approve;
    },
    choose: (question) => {
      asked.push(question);
      return answers.shift() ?? null;
    },
    stop: () => {
      stopped++;
    },
  };
  return { operator, briefed, asked, stopped: () => stopped };
}

describe('runWithOperator', () => {
  it('should start nothing when the operator declines the briefing', async () => {
    // given an engine with the approval process and an operator who declines
    const { engine } = await deployed();
    const { operator, briefed } = scripted(false, []);

    // when a run is asked for
    const run = await runWithOperator(engine, { processId: 'p' }, operator);

    // then it was declined after the briefing listed the one touchpoint, and no instance exists
    expect(run).toEqual({ outcome: 'declined' });
    expect(briefed[0]!.map((t) => [t.elementId, t.state, t.timeoutS])).toEqual([['approve', 'ahead', 300]]);
    expect(await engine.instances()).toEqual([]);
  });

  it('should put the user task to the operator with the options of the gateway after it, and answer through the API', async () => {
    // given an operator who approves and chooses the conditional flow
    const { engine, clock } = await deployed();
    const { operator, asked, stopped } = scripted(true, ['f-yes']);

    // when the run goes
    const run = await runWithOperator(engine, { processId: 'p' }, operator);

    // then the question named its options, where they came from and the boundary timer's due time
    expect(asked[0]).toMatchObject({
      elementId: 'approve',
      source: 'gateway',
      dueAt: clock.now() + 300_000,
      touchpoint: { elementId: 'approve', state: 'now', attempts: 1 },
    });
    expect(asked[0]!.options.map((option) => option.id)).toContain('f-yes');
    // and the chosen option's variables completed the task, so the run took that branch
    expect(run).toMatchObject({ outcome: 'settled', state: { status: 'completed' } });
    const instanceId = run.outcome === 'settled' ? run.instanceId : '';
    expect((await engine.instance(instanceId))?.history.map((entry) => entry.node)).toContain('shipped');
    expect(stopped()).toBe(1);
  });

  it('should stop at a choice the operator answers with null, leaving the instance waiting durably', async () => {
    // given an operator who approves the run, then stops at the choice
    const { engine } = await deployed();
    const { operator } = scripted(true, [null]);

    // when the run goes
    const run = await runWithOperator(engine, { processId: 'p' }, operator);

    // then it stopped at the question and the instance still waits on the task
    expect(run.outcome).toBe('stopped');
    const instanceId = run.outcome === 'stopped' ? run.instanceId : '';
    const state = await engine.settled(instanceId);
    expect(state.status === 'waiting' && state.userTasks.map((task) => task.elementId)).toEqual(['approve']);
  });

  it('should brief an existing instance on the touchpoints still ahead or open, and follow it', async () => {
    // given an instance already waiting at its approval
    const { engine } = await deployed();
    const id = await engine.start('p');
    await engine.settled(id);
    const { operator, briefed } = scripted(true, [{ approved: false }]);

    // when an operator takes it up and answers with variables
    const run = await runWithOperator(engine, { instanceId: id }, operator);

    // then the briefing held the open touchpoint, and the answer's variables took the default branch
    expect(briefed[0]!.map((t) => [t.elementId, t.state])).toEqual([['approve', 'now']]);
    expect(run).toMatchObject({ outcome: 'settled', instanceId: id, state: { status: 'completed' } });
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).toContain('refused');
  });

  it('should ask nothing of a process without touchpoints', async () => {
    // given a process with no touchpoint
    const { engine } = await deployed(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:endEvent id="end" />${chain('start', 'end')}`),
    );
    const { operator, briefed } = scripted(false, []);

    // when a run is asked for (the operator would decline)
    const run = await runWithOperator(engine, { processId: 'p' }, operator);

    // then it ran without a briefing
    expect(briefed).toEqual([]);
    expect(run).toMatchObject({ outcome: 'settled', state: { status: 'completed' } });
  });

  it('should stop the operator, not wait for it, when the question times out while it is asked', async () => {
    // given an operator who approves, then never answers the choice
    const { engine, clock } = await deployed();
    let stops = 0;
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const operator: Operator = {
      approve: () => true,
      choose: () => {
        asked();
        return new Promise<OperatorAnswer>(() => {});
      },
      stop: () => {
        stops++;
      },
    };

    // when the task's five-minute boundary timer fires while it is asked
    const running = runWithOperator(engine, { processId: 'p' }, operator);
    await askedOnce;
    clock.advance(300_000);
    const run = await running;

    // then the operator was stopped and the run went on by the timer's path to its end
    expect(stops).toBeGreaterThanOrEqual(1);
    expect(run).toMatchObject({ outcome: 'settled', state: { status: 'completed' } });
    const instanceId = run.outcome === 'settled' ? run.instanceId : '';
    const view = await engine.instance(instanceId);
    expect(view?.history.map((entry) => entry.node)).toContain('expired');
    expect(view?.touchpoints?.[0]?.state).toBe('timed_out');
  });

  it('should refuse an answer that names no option, naming the options', async () => {
    // given an open approval and its question
    const { engine } = await deployed();
    const id = await engine.start('p');
    const state = await engine.settled(id);
    if (state.status !== 'waiting') throw new Error('expected a user task');
    const question = await engine.question(state.userTasks[0]!.id);

    // when an option that does not exist is chosen
    const answering = answerQuestion(engine, question, 'f-maybe');

    // then it is refused and the task stays open
    await expect(answering).rejects.toThrow(InvalidStateError);
    await expect(answering).rejects.toThrow(/"f-maybe" is not an option of user task approve.*"f-yes"/);
    expect((await engine.userTasks({ instanceId: id })).length).toBe(1);
  });
});
