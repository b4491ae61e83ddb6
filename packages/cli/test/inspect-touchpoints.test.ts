/**
 * `thresher inspect FILE.bpmn --touchpoints [--json]` (issue 17): the model's touchpoints in run order, as
 * a table for people or the engine's list as JSON; a model that does not compile is refused as by `inspect`.
 */
import { readFileSync } from 'node:fs';
import { type Touchpoint, touchpoints } from '@thresher/engine';
import { compile } from '@thresher/engine/model';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { definitions, scriptProcess, Workspace } from './helpers.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../engine/test/fixtures/touchpoints/${name}`, import.meta.url), 'utf8');

const ws = new Workspace();
ws.write('run-order.bpmn', fixture('run-order.bpmn'));
ws.write('paths.bpmn', fixture('paths.bpmn'));
ws.write('waits.bpmn', fixture('waits.bpmn'));
ws.write('plain.bpmn', definitions('plain', scriptProcess()));
ws.write(
  'bad.bpmn',
  fixture('run-order.bpmn').replace('<bpmn:userTask id="confirm"', '<bpmn:userTask id="confirm" startQuantity="2"'),
);
afterAll(() => ws.remove());

describe('thresher inspect --touchpoints', () => {
  it('prints the touchpoints of each process in run order, numbered from 1', async () => {
    const run = await ws.thresher(['inspect', 'run-order.bpmn', '--touchpoints']);
    expect(run.code).toBe(ExitCode.Ok);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('run-order.bpmn: 5 touchpoints');
    expect(lines).toContain('process run-order');
    const header = lines.find((line) => line.includes('POSITION')) ?? '';
    expect(header.trim().split(/\s+/)).toEqual([
      '#',
      'POSITION',
      'LABEL',
      'DIRECTION',
      'KIND',
      'VIA',
      'TIMEOUT',
      'NOTES',
    ]);
    const rows = lines.filter((line) => /^\s+\d+\s/.test(line)).map((line) => line.trim().split(/\s{2,}/));
    expect(rows).toEqual([
      ['1', '/review', 'Review the order', 'internal', 'select'],
      ['2', '/pay', 'Payment arrives', 'inbound', 'wait', 'message'],
      ['3', '/notify', 'Tell the customer', 'outbound', 'wait', 'job'],
      ['4', '/ship/pack', 'Pack the parcel', 'internal', 'select'],
      ['5', '/confirm', 'Confirm delivery', 'internal', 'select'],
    ]);
  });

  it('shows how long a touchpoint waits and whether only some runs reach it or it may repeat', async () => {
    const run = await ws.thresher(['inspect', 'paths.bpmn', '--touchpoints']);
    expect(run.stdout).toMatch(/\/check\s+Check stock\s+internal\s+select\s+10m\s*\n/);
    expect(run.stdout).toMatch(/\/approve\s+Approve a big order\s+internal\s+select\s+only on some paths\n/);
    const waits = await ws.thresher(['inspect', 'waits.bpmn', '--touchpoints']);
    expect(waits.stdout).toMatch(
      /\/answered\s+Answer the question\s+inbound\s+wait\s+message\s+2d\s+only on some paths/,
    );
  });

  it('--json prints the engine’s list as one array', async () => {
    const run = await ws.thresher(['inspect', 'paths.bpmn', '--touchpoints', '--json']);
    expect(run.code).toBe(ExitCode.Ok);
    const expected = touchpoints(await compile(fixture('paths.bpmn')));
    expect(run.json<Touchpoint[]>()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
  });

  it('says so when a run needs no one', async () => {
    const run = await ws.thresher(['inspect', 'plain.bpmn', '--touchpoints']);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout.split('\n')[0]).toBe('plain.bpmn: no touchpoints: a run needs no one');
    expect((await ws.thresher(['inspect', 'plain.bpmn', '--touchpoints', '--json'])).json()).toEqual([]);
  });

  it('refuses a model that does not compile, naming the element, with exit code 1', async () => {
    const run = await ws.thresher(['inspect', 'bad.bpmn', '--touchpoints']);
    expect(run.code).toBe(ExitCode.Failed);
    expect(run.stdout).toMatch(/bpmn:UserTask "confirm" \(line \d+\): startQuantity="2"/);
  });

  it('is in the help, with its examples', async () => {
    const run = await ws.thresher(['inspect', '--help']);
    expect(run.stdout).toContain('thresher inspect FILE.bpmn|FILE.dmn [--touchpoints] [--json]');
    expect(run.stdout).toMatch(/--touchpoints\s+list the touchpoints instead/);
    expect(run.stdout).toContain('thresher inspect order.bpmn --touchpoints --json');
  });
});
