import {
  CheckpointErrorCode,
  createMemoryRepository,
  UnencodableValueError,
  type Variables,
} from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { EngineError, EngineErrorCode, NotFoundError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { EngineEvent, Handlers } from '../src/index.js';
import { around, bpmn, chain, ext, flow } from './fixtures/bpmn/xml.js';

function newEngine(handlers: Handlers = {}): Engine {
  return new Engine({ repository: createMemoryRepository(), handlers, backoff: () => 0 });
}

/** start → service task `work` → user task `review` → end. */
const workThenReview = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
  <bpmn:userTask id="review" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'work', 'review', 'end')}`);

const handlers: Handlers = { work: () => ({ worked: true }) };

async function runToEnd(engine: Engine, variables: Variables = {}): Promise<string> {
  const id = await engine.start('p', { variables });
  await engine.settled(id);
  for (const task of await engine.userTasks({ instanceId: id })) await engine.completeUserTask(task.id, {});
  await engine.settled(id);
  return id;
}

describe('Engine#on', () => {
  it("should publish every kind of event of a run to '*', with checkpoint seqs counting up and unique ids", async () => {
    // given a listener on everything
    const engine = newEngine(handlers);
    await engine.deploy(workThenReview);
    const events: EngineEvent[] = [];
    engine.on('*', (event) => events.push(event));

    // when an instance runs to its end
    const id = await runToEnd(engine);

    // then the listener saw the whole run
    expect((await engine.instance(id))!.status).toBe('completed');
    const types = new Set(events.map((event) => event.type));
    for (const type of [
      'instance.started',
      'track.entered',
      'track.left',
      'job.dispatched',
      'job.completed',
      'userTask.created',
      'userTask.completed',
      'checkpoint.saved',
      'instance.completed',
    ] as const) {
      expect(types, type).toContain(type);
    }
    expect(events.every((event) => event.instanceId === id)).toBe(true);
    const seqs = events.flatMap((event) => (event.type === 'checkpoint.saved' ? [event.seq] : []));
    expect(seqs).toEqual(seqs.map((_, index) => index));
    expect(seqs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events.at(-1)?.type).toBe('instance.completed');
  });

  it('should give every event a unique id when an incident is retried', async () => {
    // given a script task that fails on entering, and a listener on everything
    const engine = newEngine();
    await engine.deploy(
      around(
        `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="=assert(x, x != null)" resultVariable="r" />')}</bpmn:scriptTask>`,
      ),
    );
    const events: EngineEvent[] = [];
    engine.on('*', (event) => events.push(event));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);

    // when the incident is retried (and fails again)
    await engine.retryIncident(settled.incidents[0]!.id);
    await engine.settled(id);

    // then no two events share an id
    const ids = events.map((event) => event.id);
    expect(ids.filter((eventId, index) => ids.indexOf(eventId) !== index)).toEqual([]);
  });

  it('should deliver only the subscribed type to a typed listener', async () => {
    // given a listener on job.completed
    const engine = newEngine(handlers);
    await engine.deploy(workThenReview);
    const events: EngineEvent[] = [];
    engine.on('job.completed', (event) => events.push(event));

    // when an instance runs
    await runToEnd(engine);

    // then it saw exactly the one job completion
    expect(events.map((event) => event.type)).toEqual(['job.completed']);
    expect(events[0]).toMatchObject({ elementId: 'work' });
  });

  it('should stop delivering once unsubscribed', async () => {
    // given a listener that unsubscribes while the instance waits on its user task
    const engine = newEngine(handlers);
    await engine.deploy(workThenReview);
    const events: EngineEvent[] = [];
    const off = engine.on('*', (event) => events.push(event));
    const id = await engine.start('p');
    await engine.settled(id);
    const seen = events.length;

    // when it unsubscribes and the instance goes on
    off();
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(task!.id);
    await engine.settled(id);

    // then it heard nothing more
    expect(seen).toBeGreaterThan(0);
    expect(events).toHaveLength(seen);
  });
});

describe('Engine#deploy', () => {
  it('should give the same digest and version to the same model deployed twice, and version 2 to a changed one', async () => {
    // given an engine
    const engine = newEngine();

    // when one model is deployed twice, then a changed one
    const first = await engine.deploy(around('<bpmn:manualTask id="x" />'));
    const again = await engine.deploy(around('<bpmn:manualTask id="x" />'));
    const changed = await engine.deploy(around('<bpmn:userTask id="x" />'));

    // then the repeat is the same deployment and the change a new version
    expect(again).toEqual(first);
    expect(first).toMatchObject({ definitionId: 'defs', version: 1, processes: ['p'] });
    expect(changed.version).toBe(2);
    expect(changed.digest).not.toBe(first.digest);
  });

  it('should start the latest version unless a digest is given', async () => {
    // given two versions of a process
    const engine = newEngine();
    const v1 = await engine.deploy(around('<bpmn:manualTask id="x" />'));
    const v2 = await engine.deploy(around('<bpmn:userTask id="x" />'));

    // when one instance starts by default and one pinned to version 1
    const latest = await engine.start('p');
    const pinned = await engine.start('p', { digest: v1.digest });

    // then each runs its own version
    expect((await engine.settled(latest)).status).toBe('waiting');
    expect((await engine.settled(pinned)).status).toBe('completed');
    expect((await engine.instance(latest))!).toMatchObject({ version: 2, digest: v2.digest });
    expect((await engine.instance(pinned))!).toMatchObject({ version: 1, digest: v1.digest });
  });
});

describe('Engine#start', () => {
  it('should refuse an unknown process with NotFoundError', async () => {
    // given a deployed process `p`
    const engine = newEngine();
    await engine.deploy(around('<bpmn:manualTask id="x" />'));

    // when another process is started
    const start = engine.start('nope');

    // then it is not found
    await expect(start).rejects.toBeInstanceOf(NotFoundError);
    await expect(start).rejects.toMatchObject({ code: EngineErrorCode.NotFound });
  });

  it('should refuse a function-valued variable before storing anything', async () => {
    // given a deployed process
    const engine = newEngine();
    await engine.deploy(around('<bpmn:manualTask id="x" />'));

    // when it is started with a variable that cannot be stored
    const start = engine.start('p', { variables: { ok: 1, callback: () => 1 } });

    // then it is refused, and no instance exists
    await expect(start).rejects.toBeInstanceOf(UnencodableValueError);
    await expect(start).rejects.toMatchObject({ code: CheckpointErrorCode.Encoding });
    await expect(start).rejects.toThrow(/callback/);
    expect(await engine.instances()).toEqual([]);
  });

  it('should keep the business key', async () => {
    // given a deployed process
    const engine = newEngine();
    await engine.deploy(around('<bpmn:userTask id="x" />'));

    // when an instance starts with a business key
    const id = await engine.start('p', { businessKey: 'order-42' });
    await engine.settled(id);

    // then the view and the index both carry it
    expect((await engine.instance(id))!.businessKey).toBe('order-42');
    expect((await engine.instances()).map((summary) => summary.businessKey)).toEqual(['order-42']);
  });
});

describe('Engine#instance and Engine#instances', () => {
  it('should return undefined for an unknown instance', async () => {
    const engine = newEngine();
    expect(await engine.instance('no-such-instance')).toBeUndefined();
  });

  it('should list instances by status', async () => {
    // given one completed and one waiting instance
    const engine = newEngine();
    await engine.deploy(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" default="skip" />
        <bpmn:userTask id="x" /><bpmn:endEvent id="end" />
        ${chain('start', 'gw')}${flow('wait', 'gw', 'x', '=wait')}${flow('skip', 'gw', 'end')}${chain('x', 'end')}`),
    );
    const done = await engine.start('p', { variables: { wait: false } });
    const open = await engine.start('p', { variables: { wait: true } });
    await engine.settled(done);
    await engine.settled(open);

    // when instances are listed by status
    const completed = await engine.instances({ status: 'completed' });
    const running = await engine.instances({ status: 'running' });

    // then each list holds its instance
    expect(completed.map((summary) => summary.instanceId)).toEqual([done]);
    expect(running.map((summary) => summary.instanceId)).toEqual([open]);
  });
});

describe('Engine#close', () => {
  it('should refuse every call after close with THRESHER_ENGINE_CLOSED', async () => {
    // given an engine with a waiting instance, closed
    const engine = newEngine();
    await engine.deploy(around('<bpmn:userTask id="x" />'));
    const id = await engine.start('p');
    await engine.settled(id);
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.close();

    // when it is used again
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['deploy', () => engine.deploy(around('<bpmn:manualTask id="x" />'))],
      ['start', () => engine.start('p')],
      ['recover', () => engine.recover()],
      ['settled', () => engine.settled(id)],
      ['userTasks', () => engine.userTasks({ instanceId: id })],
      ['completeUserTask', () => engine.completeUserTask(task!.id)],
      ['retryIncident', () => engine.retryIncident(`${id}/i1`)],
    ];

    // then each call is refused as closed
    for (const [name, call] of calls) {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, name).toBeInstanceOf(EngineError);
      expect((error as EngineError).code, name).toBe(EngineErrorCode.Closed);
    }
    // and closing twice is harmless
    await expect(engine.close()).resolves.toBeUndefined();
  });
});
