import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { newInstanceId } from '../src/runtime/base/instance-ids.js';
import { bpmn, chain } from './fixtures/bpmn/xml.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The ms an id says it was made at: its first 48 bits. */
const msOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('instance ids', () => {
  it('should be UUIDs of version 7 and variant 10 that carry the ms they were made at', () => {
    const now = Date.now() + 1_000_000;

    const id = newInstanceId(now);

    expect(id).toMatch(UUID_V7);
    expect(msOf(id)).toBe(now);
  });

  it('should sort in the order they were made, within one ms and when the clock steps back', () => {
    const at = Date.now() + 2_000_000;
    const ids = [
      newInstanceId(at),
      newInstanceId(at),
      newInstanceId(at),
      newInstanceId(at - 5_000),
      newInstanceId(at + 1),
    ];

    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(msOf(ids[3]!)).toBe(at);
  });

  it('should move on to the next ms once 4,096 ids were made in one', () => {
    const at = Date.now() + 3_000_000;
    const ids = Array.from({ length: 4097 }, () => newInstanceId(at));

    expect([...ids].sort()).toEqual(ids);
    expect(msOf(ids[4095]!)).toBe(at);
    expect(msOf(ids[4096]!)).toBe(at + 1);
  });

  it('should be what start gives a new instance: ids of instances started one after another sort in that order', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    await engine.deploy(bpmn(`<bpmn:startEvent id="start" /><bpmn:endEvent id="end" />${chain('start', 'end')}`));

    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await engine.start('p'));
    await engine.close();

    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
  });
});
