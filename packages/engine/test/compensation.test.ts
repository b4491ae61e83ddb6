/**
 * Compensation at run time: ledgers record completed compensable activities with the data their handlers
 * read; a throw sweeps them newest first, one handler at a time; a failing handler is an incident on the
 * sweep that a retry continues; every compensable completion is, at every persist point, in exactly one of a
 * ledger, a sweep, or the history of a handler that ran.
 */
import { readFileSync } from 'node:fs';
import { createMemoryRepository, type LedgerEntry, openStepLog, type Repository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { BpmnError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { Job } from '../src/index.js';
import { compile } from '../src/model/index.js';
import { openState } from '../src/runtime/document/capture.js';
import { bpmn, chain, definitions, ext, process } from './fixtures/bpmn/xml.js';
import { drained } from './fixtures/runtime.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../fixtures/compensation/${name}`, import.meta.url), 'utf8');
const JOB = (type: string) => ext(`<zeebe:taskDefinition type="${type}" retries="1" />`);

/** start → book → undo (compensation throw, whole scope) → end; `book` compensable by `cancel`. */
const BOOK_THEN_UNDO = (extra = '') =>
  bpmn(`<bpmn:startEvent id="start" />
    <bpmn:serviceTask id="book">${JOB('book')}</bpmn:serviceTask>
    <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>
    <bpmn:endEvent id="end" />
    ${chain('start', 'book', 'undo', 'end')}
    <bpmn:boundaryEvent id="on-undo" attachedToRef="book"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
    <bpmn:serviceTask id="cancel" isForCompensation="true">${JOB('cancel')}</bpmn:serviceTask>
    <bpmn:association id="a" sourceRef="on-undo" targetRef="cancel" />${extra}`);

/** A promise with its resolve function, for a test to hold a handler and see when it is called. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function engineWith(
  handlers: Record<string, (job: Job) => unknown>,
  repository: Repository = createMemoryRepository(),
) {
  // Every checkpoint kept: the invariant is checked at each.
  return new Engine({
    repository,
    handlers: handlers as never,
    backoff: () => 0,
    retention: { checkpoints: Number.POSITIVE_INFINITY },
  });
}

describe('a compensation throw', () => {
  it('runs the handler with the data of its activity when it completed, and goes on', async () => {
    const seen: Job[] = [];
    const engine = engineWith({
      book: () => ({ booking: 'B-1', status: 'booked' }),
      cancel: (job) => {
        seen.push(job);
        return { cancelled: job.variables.booking };
      },
    });
    await engine.deploy(BOOK_THEN_UNDO());
    const id = await engine.start('p', { variables: { who: 'ada' } });
    expect((await engine.settled(id)).status).toBe('completed');
    expect(seen.map((job) => job.variables)).toEqual([{ who: 'ada', booking: 'B-1', status: 'booked' }]);
    expect((await engine.instance(id))?.variables).toMatchObject({ cancelled: 'B-1' });
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).toEqual([
      'start',
      'book',
      'cancel',
      'undo',
      'end',
    ]);
  });

  it('with nothing completed to compensate, goes on at once', async () => {
    const xml = BOOK_THEN_UNDO().replace(
      chain('start', 'book', 'undo', 'end'),
      `${chain('start', 'undo', 'end')}<bpmn:sequenceFlow id="x" sourceRef="book" targetRef="end" />`,
    );
    const engine = engineWith({ book: () => ({}), cancel: () => ({}) });
    await engine.deploy(xml);
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).toEqual(['start', 'undo', 'end']);
  });

  it('a handler that fails is an incident on the sweep; retrying it continues where it stopped', async () => {
    let fail = true;
    const engine = engineWith({
      book: () => ({}),
      cancel: () => {
        if (fail) throw new Error('the airline is down');
        return { cancelled: true };
      },
    });
    await engine.deploy(BOOK_THEN_UNDO());
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected an incident');
    expect(settled.incidents).toEqual([expect.objectContaining({ nodeId: 'cancel', kind: 'job-failed' })]);
    fail = false;
    await engine.retryIncident(settled.incidents[0]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.variables).toMatchObject({ cancelled: true });
  });

  it('a BPMN error from a handler is not caught around the thrower: it is an incident on the sweep', async () => {
    const catchAll = `<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="es"><bpmn:errorEventDefinition /></bpmn:startEvent><bpmn:endEvent id="ee" />${chain('es', 'ee')}</bpmn:subProcess>`;
    const engine = engineWith({
      book: () => ({}),
      cancel: () => {
        throw new BpmnError('CANNOT');
      },
    });
    await engine.deploy(BOOK_THEN_UNDO(catchAll));
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected an incident');
    expect(settled.incidents).toEqual([expect.objectContaining({ nodeId: 'cancel', kind: 'uncaught-error' })]);
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).not.toContain('ee');
  });

  it('cancelling the instance mid-sweep stops it: no further handler runs', async () => {
    // given two bookings, compensated newest first: the sweep waits in `cancel-2`, with `cancel-1` next
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:serviceTask id="book-1">${JOB('book')}</bpmn:serviceTask>
      <bpmn:serviceTask id="book-2">${JOB('book')}</bpmn:serviceTask>
      <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>
      <bpmn:endEvent id="end" />
      ${chain('start', 'book-1', 'book-2', 'undo', 'end')}
      <bpmn:boundaryEvent id="on-undo-1" attachedToRef="book-1"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
      <bpmn:serviceTask id="cancel-1" isForCompensation="true">${JOB('cancel')}</bpmn:serviceTask>
      <bpmn:association id="a1" sourceRef="on-undo-1" targetRef="cancel-1" />
      <bpmn:boundaryEvent id="on-undo-2" attachedToRef="book-2"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
      <bpmn:serviceTask id="cancel-2" isForCompensation="true">${JOB('cancel')}</bpmn:serviceTask>
      <bpmn:association id="a2" sourceRef="on-undo-2" targetRef="cancel-2" />`);
    const ran: string[] = [];
    const first = deferred<void>();
    const release = deferred<Record<string, never>>();
    const engine = engineWith({
      book: () => ({}),
      // The first handler is held until released; any later one would answer at once.
      cancel: (job) => {
        ran.push(job.elementId);
        if (ran.length > 1) return {};
        first.resolve();
        return release.promise;
      },
    });
    await engine.deploy(xml);
    const id = await engine.start('p');
    await first.promise;
    expect(ran).toEqual(['cancel-2']);

    // when the instance is cancelled, and only then does the running handler answer
    await engine.cancel(id);
    release.resolve({});
    await drained(); // where a sweep that went on would have called the next handler

    // then the sweep stopped where it was: the answer was dropped and the next handler never ran
    expect((await engine.settled(id)).status).toBe('terminated');
    expect(ran).toEqual(['cancel-2']);
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).toEqual(['start', 'book-1', 'book-2']);
  });

  it('a completed transaction keeps its ledger: a later throw compensates what it did', async () => {
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:transaction id="tx">
        <bpmn:startEvent id="ts" /><bpmn:serviceTask id="book">${JOB('book')}</bpmn:serviceTask><bpmn:endEvent id="te" />
        ${chain('ts', 'book', 'te')}
        <bpmn:boundaryEvent id="on-undo" attachedToRef="book"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
        <bpmn:serviceTask id="cancel" isForCompensation="true">${JOB('cancel')}</bpmn:serviceTask>
        <bpmn:association id="a" sourceRef="on-undo" targetRef="cancel" />
      </bpmn:transaction>
      <bpmn:endEvent id="end"><bpmn:compensateEventDefinition /></bpmn:endEvent>
      ${chain('start', 'tx', 'end')}`);
    const engine = engineWith({ book: () => ({ n: 1 }), cancel: (job) => ({ undone: job.variables.n }) });
    await engine.deploy(xml);
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).toEqual([
      'start',
      'ts',
      'book',
      'te',
      'tx',
      'cancel',
      'end',
    ]);
  });

  it("a sub-process with a handler of its own is compensated by it, not by its activities' handlers", async () => {
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:subProcess id="leg">
        <bpmn:startEvent id="ls" /><bpmn:serviceTask id="book">${JOB('book')}</bpmn:serviceTask><bpmn:endEvent id="le" />
        ${chain('ls', 'book', 'le')}
        <bpmn:boundaryEvent id="on-book" attachedToRef="book"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
        <bpmn:serviceTask id="unbook" isForCompensation="true">${JOB('unbook')}</bpmn:serviceTask>
        <bpmn:association id="a1" sourceRef="on-book" targetRef="unbook" />
      </bpmn:subProcess>
      <bpmn:endEvent id="end"><bpmn:compensateEventDefinition /></bpmn:endEvent>
      ${chain('start', 'leg', 'end')}
      <bpmn:boundaryEvent id="on-leg" attachedToRef="leg"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
      <bpmn:serviceTask id="undo-leg" isForCompensation="true">${JOB('undo-leg')}</bpmn:serviceTask>
      <bpmn:association id="a2" sourceRef="on-leg" targetRef="undo-leg" />`);
    const ran: string[] = [];
    const engine = engineWith({
      book: () => void ran.push('book'),
      unbook: () => void ran.push('unbook'),
      'undo-leg': () => void ran.push('undo-leg'),
    });
    await engine.deploy(xml);
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(ran).toEqual(['book', 'undo-leg']);
  });

  it('a compensable call activity runs its own handler; the called process is not compensated inside', async () => {
    const child = definitions(
      process(
        `<bpmn:startEvent id="cs" /><bpmn:serviceTask id="inner">${JOB('inner')}</bpmn:serviceTask><bpmn:endEvent id="ce" />${chain('cs', 'inner', 'ce')}
         <bpmn:boundaryEvent id="on-inner" attachedToRef="inner"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
         <bpmn:serviceTask id="undo-inner" isForCompensation="true">${JOB('undo-inner')}</bpmn:serviceTask>
         <bpmn:association id="ca" sourceRef="on-inner" targetRef="undo-inner" />`,
        'c',
      ),
      'child-defs',
    );
    const parent = BOOK_THEN_UNDO().replace(
      `<bpmn:serviceTask id="book">${JOB('book')}</bpmn:serviceTask>`,
      `<bpmn:callActivity id="book">${ext('<zeebe:calledElement processId="c" />')}</bpmn:callActivity>`,
    );
    const ran: string[] = [];
    const engine = engineWith({
      inner: () => void ran.push('inner'),
      'undo-inner': () => void ran.push('undo-inner'),
      cancel: () => void ran.push('cancel'),
    });
    await engine.deploy(child);
    await engine.deploy(parent);
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(ran).toEqual(['inner', 'cancel']);
  });
});

/** Every entry of a ledger, a sub-process's inner entries included (none here has a handler of its own). */
function leaves(entries: readonly LedgerEntry[]): number {
  return entries.reduce((sum, entry) => sum + (entry.inner ? leaves(entry.inner) : 1), 0);
}

describe('the compensation invariant, at every persist point', () => {
  it.each([
    ['booking.bpmn', 'trip', { traveller: 'ada' }, {}],
    ['order-undo.bpmn', 'order', { items: ['a', 'b', 'c'] }, { approved: false }],
  ])(
    '%s: each compensable completion is in a ledger, in a sweep, or compensated — once',
    async (file, processId, variables, answer) => {
      const xml = fixture(file);
      const model = (await compile(xml)).processes.get(processId)!;
      const compensable = new Set(model.compensation?.keys());
      const handlers = new Set(model.compensation?.values());
      const repository = createMemoryRepository();
      const engine = engineWith(
        {
          'charge-card': () => {
            throw new BpmnError('DECLINED');
          },
        },
        repository,
      );
      for (const type of [
        'book-flight',
        'book-hotel',
        'cancel-flight',
        'cancel-hotel',
        'refund-card',
        'reserve',
        'charge',
        'pick',
        'release',
        'refund',
        'unpick',
      ]) {
        engine.handle(type, () => ({ [`${type}-done`]: true }));
      }
      await engine.deploy(xml);
      const id = await engine.start(processId, { variables });
      const settled = await engine.settled(id);
      if (settled.status === 'waiting') await engine.completeUserTask(settled.userTasks[0]!.id, answer);
      expect((await engine.settled(id)).status).toBe('completed');
      const checkpoints = await repository.list(id);
      expect(checkpoints.length).toBeGreaterThan(3);
      const log = (await repository.history({ instanceId: id })).map((entry) => openStepLog(entry.bytes, entry));
      let swept = 0;
      for (const checkpoint of checkpoints) {
        const state = openState(checkpoint.bytes, { instanceId: id, seq: checkpoint.seq });
        // What the instance had completed by then: the log of every step up to this checkpoint's.
        const history = log.filter((entry) => entry.seq <= checkpoint.seq).flatMap((entry) => entry.completed ?? []);
        // A multi-instance host's own completion is not one: each body's is.
        const completed = history.filter(
          (entry) => compensable.has(entry.node) && (!model.nodes.get(entry.node)?.loop || /\]$/.test(entry.scope)),
        ).length;
        const compensated = history.filter((entry) => handlers.has(entry.node)).length;
        const inLedgers = [...state.scopes.values()].reduce((sum, scope) => sum + leaves(scope.ledger ?? []), 0);
        const inSweeps = [...state.tracks.values()].reduce(
          (sum, track) => sum + (track.sweep ? track.sweep.queue.length + (track.sweep.running ? 1 : 0) : 0),
          0,
        );
        if (inSweeps > 0) swept++;
        expect({ seq: checkpoint.seq, accounted: inLedgers + inSweeps + compensated }).toEqual({
          seq: checkpoint.seq,
          accounted: completed,
        });
      }
      expect(swept).toBeGreaterThan(0);
    },
  );
});
