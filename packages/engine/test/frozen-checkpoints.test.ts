import { readdirSync, readFileSync } from 'node:fs';
import {
  CURRENT_SCHEMA,
  createMemoryRepository,
  migrateRepository,
  type Repository,
  type Variables,
} from '@thresher/checkpoint';
import stringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { Handlers } from '../src/index.js';

/** A document frozen by fixtures/checkpoints/freeze.mjs from a running instance of an older build. */
interface FrozenExample {
  description: string;
  schema: number;
  deployment: { definitionId: string; digest: string; version: number; xml: string };
  handlers: string;
  answers: Record<string, Variables>;
  expected: { status: string; variables: Variables };
  checkpoint: {
    instanceId: string;
    seq: number;
    parentSeq: number | null;
    schema: number;
    definitionDigest: string;
    digest: string;
    document: unknown;
    writes: { taskId: string; index: number; value: unknown }[];
  };
}

const root = new URL('../../../', import.meta.url);
const frozenRoot = new URL('fixtures/checkpoints/', root);
const examples = readdirSync(frozenRoot, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && /^v\d+$/.test(entry.name))
  .flatMap((dir) =>
    readdirSync(new URL(`${dir.name}/`, frozenRoot))
      .filter((file) => file.endsWith('.json'))
      .map((file) => [`${dir.name}/${file}`, new URL(`${dir.name}/${file}`, frozenRoot)] as const),
  );

const bytes = (value: unknown) => new Uint8Array(Buffer.from(stringify(value), 'utf8'));

/** A repository holding the frozen document, its journal and its deployment, as an older build left them. */
async function holding(example: FrozenExample): Promise<Repository> {
  const { checkpoint, deployment } = example;
  const repository = createMemoryRepository();
  await repository.putDeployment({ ...deployment, deployedAt: 0 });
  await repository.put({
    instanceId: checkpoint.instanceId,
    seq: checkpoint.seq,
    // The first checkpoint this store holds of the instance: imported without its history.
    parentSeq: null,
    schema: checkpoint.schema,
    definitionDigest: checkpoint.definitionDigest,
    digest: checkpoint.digest,
    bytes: bytes(checkpoint.document),
    meta: {
      status: 'running',
      processId: 'order-fulfilment',
      definitionId: deployment.definitionId,
      businessKey: null,
      parentId: null,
      callNodeId: null,
      dueAt: null,
      subscriptions: [],
    },
  });
  if (checkpoint.writes.length > 0) {
    await repository.putWrites(
      checkpoint.instanceId,
      checkpoint.seq,
      checkpoint.writes.map((write) => ({ taskId: write.taskId, index: write.index, value: bytes(write.value) })),
    );
  }
  return repository;
}

describe('frozen checkpoints of every schema ever written', () => {
  it('should have examples of every schema older than the current one', () => {
    const schemas = new Set(examples.map(([name]) => Number(name.slice(1, name.indexOf('/')))));
    for (let schema = 1; schema < CURRENT_SCHEMA; schema++) expect(schemas).toContain(schema);
  });

  it.each(examples)('should restore %s with this build and run it to completion', async (_, file) => {
    // given a repository holding the frozen document, its journal and its deployment, as an older build left them
    const example = JSON.parse(readFileSync(file, 'utf8')) as FrozenExample;
    const { checkpoint } = example;
    const repository = await holding(example);
    const { default: handlers } = (await import(new URL(example.handlers, root).href)) as { default: Handlers };
    const calls: string[] = [];
    const counted: Handlers = Object.fromEntries(
      Object.entries(handlers).map(([type, handler]) => [
        type,
        (job) => {
          calls.push(job.elementId);
          return handler(job);
        },
      ]),
    );

    // when a current engine recovers it and the outside world answers its user tasks
    const engine = new Engine({ repository, handlers: counted, backoff: () => 0 });
    const report = await engine.recover();
    expect(report.failed).toEqual([]);
    expect(report.restored).toEqual([checkpoint.instanceId]);
    for (;;) {
      const settled = await engine.settled(checkpoint.instanceId);
      if (settled.status !== 'waiting' || settled.userTasks.length === 0) break;
      for (const task of settled.userTasks)
        await engine.completeUserTask(task.id, example.answers[task.elementId] ?? {});
    }

    // then it ends as the uninterrupted run did, without re-running a step its journal recorded
    const view = await engine.instance(checkpoint.instanceId);
    expect(view?.status).toBe(example.expected.status);
    expect(view?.variables).toMatchObject(example.expected.variables);
    expect(new Set(calls).size).toBe(calls.length);
    for (const write of checkpoint.writes) {
      const journaled = (write.value as { jobId: string }).jobId;
      const node = (checkpoint.document as { body: { jobs: { id: string; nodeId: string }[] } }).body.jobs.find(
        (job) => job.id === journaled,
      )?.nodeId;
      expect(calls).not.toContain(node);
    }
    await engine.close();
  });

  /** A frozen document's touchpoint events that keep their touchpoint whole (schema 12 wrote no other). */
  const wholeTouchpointEvents = (file: URL) => {
    const document = (JSON.parse(readFileSync(file, 'utf8')) as FrozenExample).checkpoint.document;
    return ((document as { body: { events?: unknown[] } }).body.events ?? []).filter(
      (event): event is { id: string; touchpoint: unknown } =>
        typeof event === 'object' && event !== null && 'touchpoint' in event,
    );
  };

  it.each(examples.filter(([name, file]) => name.startsWith('v12/') && wholeTouchpointEvents(file).length > 0))(
    'should publish the touchpoint events %s keeps as schema 12 kept them, once migrated into the log: touchpoints whole',
    async (_, file) => {
      // given a schema-12 document, whose touchpoint events hold whole touchpoints, migrated
      const example = JSON.parse(readFileSync(file, 'utf8')) as FrozenExample;
      const repository = await holding(example);
      expect((await migrateRepository(repository)).failed).toEqual([]);
      const engine = new Engine({ repository });

      // when this build reads them back
      const logged = await engine.events({ instanceId: example.checkpoint.instanceId });

      // then each is published with the touchpoint it kept
      for (const stored of wholeTouchpointEvents(file)) {
        const published = logged.find(({ event }) => event.id === `${example.checkpoint.instanceId}${stored.id}`);
        expect(published?.event).toMatchObject({ touchpoint: stored.touchpoint });
        expect(published?.event).not.toHaveProperty('progress');
      }
      await engine.close();
    },
  );

  /** The elements a frozen document of schema 13 or older lists as completed, in order. */
  const frozenHistory = (example: FrozenExample) =>
    (example.checkpoint.document as { body: { history: { node: string }[] } }).body.history.map((entry) => entry.node);

  /** Run a restored instance to its end, answering its user tasks; its completed elements in order. */
  async function runToEnd(engine: Engine, example: FrozenExample): Promise<string[]> {
    const { instanceId } = example.checkpoint;
    for (;;) {
      const settled = await engine.settled(instanceId);
      if (settled.status !== 'waiting' || settled.userTasks.length === 0) break;
      for (const task of settled.userTasks)
        await engine.completeUserTask(task.id, example.answers[task.elementId] ?? {});
    }
    return (await engine.instance(instanceId))!.history.map((entry) => entry.node);
  }

  const v13 = examples.filter(([name]) => name.startsWith('v13/'));

  it.each(v13)(
    'should show what %s completed before schema 14 once, first, in the history, migrated or not',
    async (_, file) => {
      const example = JSON.parse(readFileSync(file, 'utf8')) as FrozenExample;
      const { default: handlers } = (await import(new URL(example.handlers, root).href)) as { default: Handlers };
      const before = frozenHistory(example);
      for (const migrated of [false, true]) {
        // given the frozen instance, its store migrated or as the older build left it
        const repository = await holding(example);
        if (migrated) expect((await migrateRepository(repository)).failed).toEqual([]);
        const engine = new Engine({ repository, handlers, backoff: () => 0 });

        // when it is shown before and after a current engine ran it to its end
        const shown = (await engine.instance(example.checkpoint.instanceId))!.history.map((entry) => entry.node);
        await engine.recover();
        const ended = await runToEnd(engine, example);

        // then its past is there once, before what it did since
        expect({ migrated, shown }).toEqual({ migrated, shown: before });
        expect(ended.slice(0, before.length)).toEqual(before);
        expect(ended.filter((node) => node === 'end').length).toBeLessThanOrEqual(1);
        expect(ended.length).toBeGreaterThan(before.length);
        await engine.close();
      }
    },
  );

  it.each(v13)(
    'should move the past of %s into the log with its events, once, however often the migration runs',
    async (_, file) => {
      // given the frozen instance, migrated twice
      const example = JSON.parse(readFileSync(file, 'utf8')) as FrozenExample;
      const repository = await holding(example);
      const first = await migrateRepository(repository);
      const again = await migrateRepository(repository);

      // then its one checkpoint is rewritten once, and the log has one entry: its past and its step's events
      expect([first.migrated, again.migrated, again.current]).toEqual([1, 0, 1]);
      const { instanceId } = example.checkpoint;
      const entries = await repository.history({ instanceId });
      expect(entries).toHaveLength(1);
      const { body } = example.checkpoint.document as { body: { events?: { id?: string }[] | string[] } };
      const engine = new Engine({ repository });
      const events = await engine.events({ instanceId });
      expect(events.map(({ event }) => event.type)).toContain('checkpoint.saved');
      expect(events).toHaveLength(1 + (body.events?.length ?? 0));
      expect((await engine.instance(instanceId))!.history.map((entry) => entry.node)).toEqual(frozenHistory(example));
      await engine.close();
    },
  );
});
