/**
 * Long-lived instances kept small (issue 55): each put keeps the instance's latest checkpoints, ended instances
 * expire, registered readers of the event feed keep what they have not read, and a loop that runs on is warned
 * of, not stopped.
 */
import { readFileSync } from 'node:fs';
import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { EngineEvent, EngineOptions, Job } from '../src/index.js';

const poll = readFileSync(new URL('../../../fixtures/long-lived/poll.bpmn', import.meta.url), 'utf8');
const handlers = { 'poll-supplier': ({ variables }: Job) => ({ polls: Number(variables.polls) + 1 }) };

const engines: Engine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

async function polling(options: Partial<EngineOptions> & { repository?: Repository } = {}) {
  const repository = options.repository ?? createMemoryRepository();
  const engine = new Engine({ handlers, ...options, repository });
  engines.push(engine);
  await engine.deploy(poll);
  return { repository, engine };
}

/** An instance polling `limit` times, run to its end. */
async function polled(engine: Engine, limit: number): Promise<string> {
  const id = await engine.start('supplier-poll', { variables: { limit, polls: 0 } });
  expect((await engine.settled(id)).status).toBe('completed');
  return id;
}

describe('checkpoints an instance keeps', () => {
  it('should keep the latest 10 as it runs, every one with Infinity, and the history whole either way', async () => {
    const kept = await polling();
    const all = await polling({ retention: { checkpoints: Number.POSITIVE_INFINITY } });
    const three = await polling({ retention: { checkpoints: 3 } });

    const ids = [await polled(kept.engine, 20), await polled(all.engine, 20), await polled(three.engine, 20)];

    expect((await kept.repository.list(ids[0]!)).map(({ seq }) => seq)).toEqual([
      11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
    ]);
    expect(await all.repository.list(ids[1]!)).toHaveLength(21);
    expect((await three.repository.list(ids[2]!)).map(({ seq }) => seq)).toEqual([18, 19, 20]);
    for (const [index, { engine }] of [kept, all, three].entries()) {
      expect((await engine.instance(ids[index]!))?.history).toHaveLength(42);
    }
  });

  it('should refuse a retention that is not a positive integer, naming it', () => {
    const repository = createMemoryRepository();
    for (const [retention, named] of [
      [{ checkpoints: 0 }, 'retention.checkpoints'],
      [{ checkpoints: 1.5 }, 'retention.checkpoints'],
      [{ ended: -1 }, 'retention.ended'],
      [{ sweepMs: 0 }, 'retention.sweepMs'],
    ] as const) {
      expect(() => new Engine({ repository, retention })).toThrow(new RegExp(named.replace('.', '\\.')));
    }
    expect(() => new Engine({ repository, loopWarning: 0 })).toThrow(/loopWarning/);
  });
});

describe('ended instances', () => {
  it('should expire after retention.ended, swept on its own, and not before', async () => {
    // given instances ended at virtual time 1,000, an engine that keeps them an hour, swept every 20 ms
    const clock = new VirtualClock(1_000);
    const { repository, engine } = await polling({ clock: clock.view(), retention: { ended: 3_600_000, sweepMs: 20 } });
    const first = await polled(engine, 2);
    const second = await polled(engine, 2);
    expect((await repository.instances()).map(({ endedAt }) => endedAt)).toEqual([1_000, 1_000]);

    // when less than the hour has passed, nothing goes; once it has, both go, checkpoints and log
    clock.advance(3_599_000);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await repository.instances()).toHaveLength(2);
    clock.advance(1_000);
    await vi.waitFor(async () => expect(await repository.instances()).toEqual([]), { timeout: 2_000 });
    expect(await repository.history({ instanceId: first })).toEqual([]);
    expect(await repository.get(second)).toBeUndefined();
  });

  it('should keep what a registered reader has not read, until it acknowledged it', async () => {
    // given an ended instance and a reader registered before it ran
    const { repository, engine } = await polling();
    const reader = await engine.eventReader('billing');
    const id = await polled(engine, 3);

    // then expiring keeps it while the reader has read nothing, and after it read only part of its events
    expect(await engine.expireEnded(Date.now())).toEqual([]);
    const some = await reader.read({ limit: 5 });
    await reader.acknowledge(some.at(-1)!.position);
    expect(await engine.expireEnded(Date.now())).toEqual([]);

    // and once the reader read to its end and acknowledged it, it goes; one that ended since stays, until the
    // reader is removed
    const rest = await reader.read();
    expect(rest.length).toBeGreaterThan(0);
    const later = await polled(engine, 1);
    await reader.acknowledge(rest.at(-1)!.position);
    expect(await engine.expireEnded(Date.now())).toEqual([id]);
    expect(await reader.remove()).toBe(true);
    expect(await engine.expireEnded(Date.now())).toEqual([later]);
    expect(await repository.instances()).toEqual([]);
  });
});

describe('a registered reader of the event feed', () => {
  it('should read on after what it acknowledged, across engines, exactly once, even within one step', async () => {
    // given an instance whose events were published, and a reader registered before it ran
    const repository = createMemoryRepository();
    const { engine } = await polling({ repository, retention: { checkpoints: 1 } });
    await engine.eventReader('audit');
    const published: EngineEvent[] = [];
    engine.on('*', (event) => {
      if (event.type !== 'instance.restored') published.push(event);
    });
    await polled(engine, 4);

    // when it reads in pages of 3 events (a step's events split across pages), acknowledging each, on a new
    // engine each time
    const read: EngineEvent[] = [];
    for (;;) {
      const next = new Engine({ repository });
      engines.push(next);
      const reader = await next.eventReader('audit');
      const page = await reader.read({ limit: 3 });
      if (page.length === 0) break;
      read.push(...page.map(({ event }) => event));
      await reader.acknowledge(page.at(-1)!.position);
    }

    // then it read every event published, in order, once, although only the latest checkpoint is kept
    expect(read).toEqual(published);
    expect(await repository.list(published[0]!.instanceId)).toHaveLength(1);
  });

  it('should be named by a non-empty string, and refuse to read once removed', async () => {
    const { engine } = await polling();
    await expect(engine.eventReader('')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(engine.eventReader('a\u0000b')).rejects.toBeInstanceOf(InvalidArgumentError);
    const reader = await engine.eventReader('gone');
    await reader.remove();
    await expect(reader.read()).rejects.toThrow(/event reader "gone" was removed/);
  });
});

describe('the event feed', () => {
  it('should refuse a position of the checkpoints before the log, naming it', async () => {
    const { engine } = await polling();
    const old = Buffer.from(JSON.stringify(['7', 'order-1', 3, 0])).toString('base64url');
    await expect(engine.events({ after: old })).rejects.toThrow(/a position from before the event log/);
  });
});

describe('a loop that runs on', () => {
  it('should warn past loopWarning, once and at each doubling, show it on the instance, and raise no incident', async () => {
    // given an engine that warns past 3 entries, and a handler that looks at the instance at the 9th poll
    const seen: { looping?: unknown } = {};
    let engine!: Engine;
    ({ engine } = await polling({
      loopWarning: 3,
      handlers: {
        'poll-supplier': async ({ variables, instanceId }: Job) => {
          const polls = Number(variables.polls) + 1;
          if (polls === 9) seen.looping = (await engine.instance(instanceId))?.looping;
          return { polls };
        },
      },
    }));
    const warnings: EngineEvent[] = [];
    engine.on('element.looping', (event) => warnings.push(event));

    // when it polls 15 times
    const id = await polled(engine, 15);

    // then each element warns at its 4th, 7th and 13th entry, the view lists the loop, and there is no incident
    const turns = (element: string) =>
      warnings.flatMap((event) =>
        event.type === 'element.looping' && event.elementId === element ? [event.turns] : [],
      );
    expect([turns('ask'), turns('check')]).toEqual([
      [4, 7, 13],
      [4, 7, 13],
    ]);
    expect(warnings[0]).toMatchObject({ scope: '/', threshold: 3 });
    expect(seen.looping).toEqual([
      { elementId: 'ask', scope: '/', turns: 9, threshold: 3 },
      { elementId: 'check', scope: '/', turns: 8, threshold: 3 },
    ]);
    expect((await engine.instance(id))?.incidents).toEqual([]);
  });
});
