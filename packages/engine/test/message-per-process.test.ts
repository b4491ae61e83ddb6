import { createMemoryRepository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { AlreadyExistsError } from '../src/index.js';
import { definitions, ext, messageDefinition } from './fixtures/bpmn/xml.js';

const MINUTE = 60_000;
const go = `<bpmn:message id="m-go" name="go">${ext('<zeebe:subscription correlationKey="=key" />')}</bpmn:message>`;

/** A process `id` whose instance waits at a receive task for `go` with its `key`. */
const waiter = (id: string) =>
  definitions(
    `${go}<bpmn:process id="${id}" isExecutable="true"><bpmn:startEvent id="${id}-s" /><bpmn:receiveTask id="${id}-r" messageRef="m-go" /><bpmn:endEvent id="${id}-e" /><bpmn:sequenceFlow id="${id}-f1" sourceRef="${id}-s" targetRef="${id}-r" /><bpmn:sequenceFlow id="${id}-f2" sourceRef="${id}-r" targetRef="${id}-e" /></bpmn:process>`,
    `defs-${id}`,
  );

/** A process started by `go`. */
const starter = definitions(
  `<bpmn:message id="m-go" name="go" /><bpmn:process id="starter" isExecutable="true"><bpmn:startEvent id="st-s">${messageDefinition('m-go')}</bpmn:startEvent><bpmn:endEvent id="st-e" /><bpmn:sequenceFlow id="st-f" sourceRef="st-s" targetRef="st-e" /></bpmn:process>`,
  'defs-starter',
);

let engine: Engine;
let clock: VirtualClock;
beforeEach(async () => {
  clock = new VirtualClock();
  engine = new Engine({ repository: createMemoryRepository(), clock: clock.view() });
  for (const xml of [waiter('a'), waiter('b'), starter]) await engine.deploy(xml);
});
afterEach(async () => {
  await engine.close();
});

async function waiting(processId: string, key: string): Promise<string> {
  const id = await engine.start(processId, { variables: { key } });
  await engine.settled(id);
  return id;
}

async function status(id: string): Promise<string | undefined> {
  return (await engine.instance(id))?.status;
}

describe('a published message, as Zeebe correlates it', () => {
  it('should reach the first waiting instance of each process, and start each process with a message start', async () => {
    const [a1, a2, b1] = [await waiting('a', 'k'), await waiting('a', 'k'), await waiting('b', 'k')];
    const result = await engine.correlateMessage('go', { correlationKey: 'k' });
    await Promise.all([a1, a2, b1].map((id) => engine.settled(id)));

    expect(result.correlated).toBe(true);
    expect(result.instanceIds).toHaveLength(3);
    expect(result.instanceIds.slice(0, 2).sort()).toEqual([[a1, a2].sort()[0], b1].sort());
    expect([await status(a1), await status(a2)].sort()).toEqual(['completed', 'running']);
    expect(await status(b1)).toBe('completed');
    const started = result.instanceIds[2]!;
    expect((await engine.instance(started))?.processId).toBe('starter');
  });

  it('should keep a message with a time-to-live for each process, each taking it once', async () => {
    const result = await engine.correlateMessage('go', { correlationKey: 'later', timeToLive: MINUTE });
    // The starter took it at once; the waiting processes have no instance yet.
    expect(result).toMatchObject({ correlated: true, instanceIds: [expect.any(String)] });

    const a1 = await waiting('a', 'later');
    const a2 = await waiting('a', 'later');
    const b1 = await waiting('b', 'later');
    expect(await status(a1)).toBe('completed');
    expect(await status(a2)).toBe('running');
    expect(await status(b1)).toBe('completed');
  });

  it('should refuse a messageId kept already for the same name and key, but not for another key', async () => {
    const send = (key: string) =>
      engine.correlateMessage('go', { correlationKey: key, timeToLive: MINUTE, messageId: 'm-1' });
    await send('x');
    await expect(send('x')).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(send('y')).resolves.toMatchObject({ correlated: true });
    const a = await waiting('a', 'y');
    expect(await status(a)).toBe('completed');
  });
});
