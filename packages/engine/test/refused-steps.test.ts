import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { bpmn, chain, message, messageDefinition } from './fixtures/bpmn/xml.js';

/**
 * A user task `wait`, and a non-interrupting event sub-process started by message `go` whose own event
 * sub-process waits for message `inner` keyed by `=bad`: an object, which no subscription can be keyed by. The
 * outer one's scope is made before the inner key is evaluated, so refusing `go` means undoing that scope.
 */
const nested = bpmn(`
  <bpmn:startEvent id="start" /><bpmn:userTask id="wait" /><bpmn:endEvent id="end" />
  ${chain('start', 'wait', 'end')}
  <bpmn:subProcess id="outer" triggeredByEvent="true">
    <bpmn:startEvent id="outer-start" isInterrupting="false">${messageDefinition('m-go')}</bpmn:startEvent>
    <bpmn:userTask id="outer-task" /><bpmn:endEvent id="outer-end" />
    ${chain('outer-start', 'outer-task', 'outer-end')}
    <bpmn:subProcess id="inner" triggeredByEvent="true">
      <bpmn:startEvent id="inner-start" isInterrupting="false">${messageDefinition('m-inner')}</bpmn:startEvent>
      <bpmn:endEvent id="inner-end" />
      ${chain('inner-start', 'inner-end')}
    </bpmn:subProcess>
  </bpmn:subProcess>`).replace(
  '<bpmn:process',
  `${message('m-go', 'go', '=k')}${message('m-inner', 'inner', '=bad')}<bpmn:process`,
);

async function parkedAtWait(repository: Repository): Promise<{ engine: Engine; id: string }> {
  const engine = new Engine({ repository, handlers: {}, backoff: () => 0 });
  await engine.deploy(nested);
  const id = await engine.start('p', { variables: { k: 'order-1', bad: { not: 'a key' } } });
  await engine.settled(id);
  return { engine, id };
}

describe('a step the core refuses halfway', () => {
  it('should leave the instance as its latest checkpoint holds it, and the instance should go on from there', async () => {
    // given an instance parked at `wait`, its latest checkpoint stored
    const repository = createMemoryRepository();
    const { engine, id } = await parkedAtWait(repository);
    const before = await engine.instance(id);
    const seq = (await repository.get(id))!.seq;

    // when `go` arrives and its event sub-process cannot arm the one inside it
    await expect(engine.correlateMessage('go', { correlationKey: 'order-1' })).rejects.toThrow(/correlation key/);

    // then nothing of the refused step stays: no scope of `outer`, nothing written
    expect(await engine.instance(id)).toEqual(before);
    expect((await repository.get(id))!.seq).toBe(seq);

    // and the instance goes on from its checkpoint: completing `wait` ends it
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(task!.id);
    expect((await engine.settled(id)).status).toBe('completed');
  });

  it('should stop the loop when the checkpoint cannot be read back, and restore the instance from the store on its next call', async () => {
    // given an instance parked at `wait`, on a store whose reads of one seq fail while `failReads` is set
    let failReads = false;
    const inner = createMemoryRepository();
    const repository = new Proxy(inner, {
      get(target, property) {
        if (property === 'get') {
          return (instanceId: string, seq?: number) =>
            failReads && seq !== undefined ? Promise.reject(new Error('disk unreadable')) : target.get(instanceId, seq);
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { engine, id } = await parkedAtWait(repository);
    const faults: string[] = [];
    engine.onFault(({ instanceId }) => faults.push(instanceId));

    // when `go` is refused halfway and the checkpoint cannot be read back
    failReads = true;
    await expect(engine.correlateMessage('go', { correlationKey: 'order-1' })).rejects.toThrow(/correlation key/);
    failReads = false;

    // then the loop stopped (a fault), and the next call runs the instance as its checkpoint holds it
    expect(faults).toEqual([id]);
    const [task] = await engine.userTasks({ instanceId: id });
    expect(task?.elementId).toBe('wait');
    await engine.completeUserTask(task!.id);
    expect((await engine.settled(id)).status).toBe('completed');
  });
});
