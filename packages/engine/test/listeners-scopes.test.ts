import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { around, chain, definitions, ext, message, process, signal, withRoots } from './fixtures/bpmn/xml.js';
import { listeners, logging } from './fixtures/listeners.js';
import { engineWith } from './fixtures/runtime.js';

describe('process listeners', () => {
  it('Process#listeners should run start listeners before the start event and end listeners after the last element, before the instance completes', async () => {
    // given a process with a start and an end listener around one task
    const { calls, jobs, handlers } = logging(['opened', 'work', 'closed'], {
      opened: () => ({ ticket: 'T-1' }),
      closed: (job) => ({ closedTicket: job.variables.ticket }),
    });
    const xml = definitions(
      process(
        `${ext(listeners(['start', 'opened'], ['end', 'closed']))}<bpmn:startEvent id="s" />
        <bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask><bpmn:endEvent id="e" />${chain('s', 'x', 'e')}`,
      ),
    );
    const engine = await engineWith(xml, handlers);
    const completed: string[] = [];
    engine.on('instance.completed', () => completed.push(`completed after ${calls.length} calls`));

    // when an instance runs
    const id = await engine.start('p', { variables: { a: 1 } });
    expect((await engine.settled(id)).status).toBe('completed');

    // then the listeners' jobs name the process as their element, and ran first and last
    expect(calls).toEqual(['opened@p', 'work@x', 'closed@p']);
    expect(jobs[0]).toMatchObject({ elementId: 'p', listener: { eventType: 'start' }, variables: { a: 1 } });
    expect(completed).toEqual(['completed after 3 calls']);
    // and both listeners' variables are the process's: the task saw the start listener's
    expect(jobs[1]!.variables).toEqual({ a: 1, ticket: 'T-1' });
    const after = (await engine.instance(id))!;
    expect(after.variables).toEqual({ a: 1, ticket: 'T-1', closedTicket: 'T-1' });
    expect(after.history.map((entry) => entry.node)).toEqual(['s', 'x', 'e']);
  });

  it('Process#listeners should start a message-started instance at its message start event once the start listeners ran', async () => {
    const { calls, handlers } = logging(['opened']);
    const engine = await engineWith(
      withRoots(
        message('m', 'go'),
        `${ext(listeners(['start', 'opened']))}<bpmn:startEvent id="none" /><bpmn:startEvent id="byMessage"><bpmn:messageEventDefinition messageRef="m" /></bpmn:startEvent>
        <bpmn:endEvent id="e1" /><bpmn:endEvent id="e2" />${chain('none', 'e1')}${chain('byMessage', 'e2')}`,
      ),
      handlers,
    );
    const { instanceId } = await engine.correlateMessage('go', { variables: { from: 'msg' } });
    expect((await engine.settled(instanceId!)).status).toBe('completed');
    expect(calls).toEqual(['opened@p']);
    expect((await engine.instance(instanceId!))!.history.map((entry) => entry.node)).toEqual(['byMessage', 'e2']);
  });

  it('Process#listeners should stop at an incident on the process when a start listener runs out of retries, and go on once retried', async () => {
    // given a process whose start listener fails once, with one attempt
    let attempts = 0;
    const { calls, handlers } = logging(['opened'], {
      opened: () => {
        attempts += 1;
        if (attempts === 1) throw new Error('audit down');
        return {};
      },
    });
    const engine = await engineWith(
      definitions(
        process(
          `${ext(listeners(['start', 'opened', 'retries="1"']))}<bpmn:startEvent id="s" /><bpmn:endEvent id="e" />${chain('s', 'e')}`,
        ),
      ),
      handlers,
    );

    // when an instance starts
    const id = await engine.start('p');
    const stuck = await engine.settled(id);

    // then the incident is on the process, nothing inside it has run yet
    expect(stuck.status === 'waiting' && stuck.incidents.map((i) => [i.nodeId, i.message])).toEqual([
      ['p', 'handler failed: audit down'],
    ]);
    expect((await engine.instance(id))!.history).toEqual([]);

    // when it is retried, the process starts
    await engine.retryIncident(stuck.status === 'waiting' ? stuck.incidents[0]!.id : '');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['opened@p', 'opened@p']);
  });

  it('Process#listeners should skip the end listeners of a cancelled instance', async () => {
    const { calls, handlers } = logging(['closed']);
    const engine = await engineWith(
      definitions(
        process(
          `${ext(listeners(['end', 'closed']))}<bpmn:startEvent id="s" /><bpmn:userTask id="u" /><bpmn:endEvent id="e" />${chain('s', 'u', 'e')}`,
        ),
      ),
      handlers,
    );
    const id = await engine.start('p');
    await engine.settled(id);
    await engine.cancel(id);
    expect((await engine.settled(id)).status).toBe('terminated');
    expect(calls).toEqual([]);
  });
});

describe('listeners of containers', () => {
  it('SubProcess#listeners should make start listeners’ variables locals of the sub-process, and run its end listeners after its outputs', async () => {
    // given a sub-process with an input, an output, a start and an end listener
    const { calls, jobs, handlers } = logging(['opened', 'work', 'closed'], {
      opened: (job) => ({ inner: `${job.variables.local}!` }),
      closed: (job) => ({ seen: job.variables.result }),
    });
    const engine = await engineWith(
      around(
        `<bpmn:subProcess id="x">${ext(
          `<zeebe:ioMapping><zeebe:input source="=a" target="local" /><zeebe:output source="=inner" target="result" /></zeebe:ioMapping>${listeners(['start', 'opened'], ['end', 'closed'])}`,
        )}<bpmn:startEvent id="in" /><bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask><bpmn:endEvent id="out" />${chain('in', 't', 'out')}</bpmn:subProcess>`,
      ),
      handlers,
    );

    // when an instance runs
    const id = await engine.start('p', { variables: { a: 'hi' } });
    expect((await engine.settled(id)).status).toBe('completed');

    // then the start listener read the input, the inner task saw its local, and the end listener the output
    expect(calls).toEqual(['opened@x', 'work@t', 'closed@x']);
    expect(jobs[0]!.variables).toEqual({ a: 'hi', local: 'hi' });
    expect(jobs[1]!.variables).toEqual({ a: 'hi', local: 'hi', inner: 'hi!' });
    expect((await engine.instance(id))!.variables).toEqual({ a: 'hi', result: 'hi!', seen: 'hi!' });
  });

  it('should set an end listener’s variables in the element’s flow scope: inside a sub-process, the sub-process’s', async () => {
    // given a sub-process whose first task has an end listener, and a second task after it
    const { jobs, handlers } = logging(['mark', 'work'], { mark: () => ({ marked: true }) });
    const engine = await engineWith(
      around(
        `<bpmn:subProcess id="x"><bpmn:startEvent id="in" /><bpmn:task id="t1">${ext(listeners(['end', 'mark']))}</bpmn:task><bpmn:serviceTask id="t2">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask><bpmn:endEvent id="out" />${chain('in', 't1', 't2', 'out')}</bpmn:subProcess>`,
      ),
      handlers,
    );

    // when an instance runs
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');

    // then the second task saw the variable, and it stayed in the sub-process (which maps nothing out)
    expect(jobs[1]!.variables).toEqual({ marked: true });
    expect((await engine.instance(id))!.variables).toEqual({});
  });

  it('CallActivity#listeners should start the child after the start listeners and leave after the end listeners', async () => {
    const { calls, handlers } = logging(['before', 'child-work', 'after'], { before: () => ({ given: 5 }) });
    const engine = await engineWith(
      definitions(
        `${process(`<bpmn:startEvent id="s" /><bpmn:callActivity id="x">${ext(`<zeebe:calledElement processId="child" />${listeners(['start', 'before'], ['end', 'after'])}`)}</bpmn:callActivity><bpmn:endEvent id="e" />${chain('s', 'x', 'e')}`)}
         ${process(`<bpmn:startEvent id="cs" /><bpmn:serviceTask id="cw">${ext('<zeebe:taskDefinition type="child-work" />')}</bpmn:serviceTask><bpmn:endEvent id="ce" />${chain('cs', 'cw', 'ce')}`, 'child')}`,
      ),
      handlers,
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['before@x', 'child-work@cw', 'after@x']);
  });

  it('MultiInstance#listeners should run the listeners once per inner instance, none for the body as a whole', async () => {
    const { calls, jobs, handlers } = logging(['before', 'work', 'after']);
    const engine = await engineWith(
      around(
        `<bpmn:serviceTask id="x">${ext(`<zeebe:taskDefinition type="work" />${listeners(['start', 'before'], ['end', 'after'])}`)}<bpmn:multiInstanceLoopCharacteristics isSequential="true">${ext('<zeebe:loopCharacteristics inputCollection="=[1, 2]" inputElement="item" />')}</bpmn:multiInstanceLoopCharacteristics></bpmn:serviceTask>`,
      ),
      handlers,
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['before@x', 'work@x', 'after@x', 'before@x', 'work@x', 'after@x']);
    expect(jobs.filter((job) => job.listener).map((job) => job.variables.item)).toEqual([1, 1, 2, 2]);
  });

  it('EventSubProcess#listeners should run an event sub-process’s start listeners before its start event and its end listeners before it completes', async () => {
    const { calls, jobs, handlers } = logging(['opened', 'closed']);
    const engine = await engineWith(
      withRoots(
        signal('sig', 'poke'),
        `<bpmn:startEvent id="s" /><bpmn:userTask id="u" /><bpmn:endEvent id="e" />${chain('s', 'u', 'e')}
        <bpmn:subProcess id="esp" triggeredByEvent="true">${ext(listeners(['start', 'opened'], ['end', 'closed']))}
          <bpmn:startEvent id="es" isInterrupting="false"><bpmn:signalEventDefinition signalRef="sig" /></bpmn:startEvent><bpmn:endEvent id="ee" />${chain('es', 'ee')}
        </bpmn:subProcess>`,
      ),
      handlers,
    );
    const id = await engine.start('p');
    await engine.settled(id);
    await engine.broadcastSignal('poke', { variables: { poked: true } });
    const waiting = await engine.settled(id);
    expect(calls).toEqual(['opened@esp', 'closed@esp']);
    expect(jobs[0]!.listener).toEqual({ eventType: 'start' });
    // the trigger's payload reaches the event sub-process's start event after its start listeners
    expect(jobs[0]!.variables).not.toHaveProperty('poked');
    expect(jobs[1]!.variables).toMatchObject({ poked: true });
    const history = (await engine.instance(id))!.history.map((entry) => entry.node);
    expect(history).toEqual(['s', 'es', 'ee', 'esp']);
    expect(waiting.status).toBe('waiting');
  });
});

describe('listeners across a restart', () => {
  it('should resume a track waiting on a listener’s job after a restart, with the listener’s key unchanged', async () => {
    // given an instance whose start listener's handler never answers in the first engine
    const repository = createMemoryRepository();
    const keys: string[] = [];
    const first = new Engine({
      repository,
      handlers: {
        slow: (job) => {
          keys.push(job.idempotencyKey);
          return new Promise(() => {});
        },
      },
    });
    await first.deploy(around(`<bpmn:task id="x">${ext(listeners(['start', 'slow']))}</bpmn:task>`));
    const id = await first.start('p');
    await new Promise((resolve) => setImmediate(resolve));
    await first.close();

    // when a second engine recovers it with a handler that answers
    const second = new Engine({
      repository,
      handlers: {
        slow: (job) => {
          keys.push(job.idempotencyKey);
          return { done: true };
        },
      },
    });
    await second.recover();

    // then the listener ran again under the same key, and the instance completed
    expect((await second.settled(id)).status).toBe('completed');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
