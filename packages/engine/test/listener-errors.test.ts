import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { EventListenerError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

const twoTasks = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
  <bpmn:serviceTask id="ship">${ext('<zeebe:taskDefinition type="ship" />')}</bpmn:serviceTask>
  <bpmn:endEvent id="end" />${chain('start', 'work', 'ship', 'end')}`);

describe('an event listener that throws', () => {
  it('is reported as a fault of its own, and the instance runs on: start resolves, every effect is performed', async () => {
    const runs: string[] = [];
    const engine = new Engine({
      repository: createMemoryRepository(),
      handlers: { work: () => void runs.push('work'), ship: () => void runs.push('ship') },
    });
    const faults: { instanceId: string; error: Error }[] = [];
    engine.onFault((fault) => faults.push(fault));
    const seen: string[] = [];
    engine.on('job.dispatched', () => {
      throw new Error('the projection is down');
    });
    engine.on('*', (event) => seen.push(event.type));
    await engine.deploy(twoTasks);

    const id = await engine.start('p');
    await engine.settled(id);

    expect((await engine.instance(id))?.status).toBe('completed');
    expect(runs).toEqual(['work', 'ship']);
    // The listeners after it still heard every event.
    expect(seen.filter((type) => type === 'job.dispatched')).toHaveLength(2);
    expect(faults).toHaveLength(2);
    expect(faults[0]?.instanceId).toBe(id);
    expect(faults[0]?.error).toBeInstanceOf(EventListenerError);
    expect(faults[0]?.error).toMatchObject({
      code: 'THRESHER_LISTENER_FAILED',
      eventType: 'job.dispatched',
      cause: expect.objectContaining({ message: 'the projection is down' }),
    });
    expect(faults[0]?.error.message).toContain('a listener of job.dispatched threw: the projection is down');
    await engine.close();
  });
});
