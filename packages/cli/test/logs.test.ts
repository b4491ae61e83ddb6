/**
 * Logs: progress, warnings and errors as human lines or JSON objects on stderr, filtered by level, with the
 * ids they are about; and a long command's status line on a terminal.
 */
import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { definitions, serviceProcess, TestClock, Workspace } from './helpers.js';

const ws = new Workspace();
afterAll(() => ws.remove());

const WARNED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="warned-logs">
  <bpmn:process id="greeting" isExecutable="true">
    <bpmn:startEvent id="start" /><bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="greet" />
    <bpmn:serviceTask id="greet"><bpmn:extensionElements><zeebe:taskDefinition type="greet" /><zeebe:jobPriorityDefinition priority="5" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="greet" targetRef="end" /><bpmn:endEvent id="end" />
  </bpmn:process>
</bpmn:definitions>`;

ws.write('greeting.bpmn', definitions('greetings', serviceProcess));
ws.write('warned.bpmn', WARNED);
ws.write('handlers.mjs', 'export const greet = async () => ({ greeted: true });\n');

/** `thresher run` of the greeting process with its handler on a memory store; flags follow. */
const RUN = ['run', 'greeting.bpmn', '--handlers', 'handlers.mjs', '--store', 'memory:'];

/** stderr's lines, each parsed as a JSON object (failing the test on one that is not). */
function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('--log-format json', () => {
  it('writes every stderr line as one JSON object with time, level, message and the ids it is about', async () => {
    const clock = new TestClock(Date.parse('2026-12-04T09:00:00Z'));
    const run = await ws.thresher([...RUN, '--log-format', 'json'], {
      clock,
    });

    expect(run.code).toBe(ExitCode.Ok);
    const lines = jsonLines(run.stderr);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line).toMatchObject({ time: '2026-12-04T09:00:00.000Z', level: 'info' });
    const dispatched = lines.find((line) => line.event === 'job.dispatched');
    expect(dispatched).toMatchObject({ elementId: 'greet', msg: expect.stringContaining('greet: running greet') });
    expect(dispatched?.instanceId).toEqual(lines.find((line) => line.event === 'instance.started')?.instanceId);
    expect(run.stdout).toContain('completed');
  });

  it('logs alongside --json when asked, leaving stdout one document', async () => {
    const run = await ws.thresher([...RUN, '--json', '--log-format=json']);

    expect(run.json()).toMatchObject({ status: 'completed' });
    expect(jsonLines(run.stderr).map((line) => line.event)).toContain('instance.completed');
    const quiet = await ws.thresher([...RUN, '--json']);
    expect(quiet.stderr).toBe('');
  });

  it('writes an error as an error line', async () => {
    const run = await ws.thresher(['show', 'nope', '--store', 'memory:', '--log-format', 'json']);

    expect(run.code).toBe(ExitCode.Failed);
    expect(jsonLines(run.stderr)).toEqual([
      expect.objectContaining({ level: 'error', msg: expect.stringContaining('nope') }),
    ]);
  });
});

describe('--log-level', () => {
  it('warn keeps warnings and errors and drops progress; debug adds every engine event', async () => {
    const warn = await ws.thresher([
      'run',
      'warned.bpmn',
      '--handlers',
      'handlers.mjs',
      '--store',
      'memory:',
      '--log-level',
      'warn',
    ]);
    expect(warn.code).toBe(ExitCode.Ok);
    expect(warn.stderr).toMatch(/^warning: greet: /m);
    expect(warn.stderr).not.toContain('running greet');

    const info = await ws.thresher(RUN);
    const debug = await ws.thresher([...RUN, '--log-level', 'debug']);
    expect(info.stderr).not.toMatch(/\] job\.completed$/m);
    expect(debug.stderr).toMatch(/\] job\.completed$/m);
    expect(debug.stderr).toContain('running greet');
  });

  it('refuses a level or a format it does not know, by name (exit 2)', async () => {
    const level = await ws.thresher(['run', 'greeting.bpmn', '--log-level', 'loud']);
    expect(level.code).toBe(ExitCode.Usage);
    expect(level.stderr).toContain('option --log-level: expected debug, info, warn, error, got "loud"');
    const format = await ws.thresher(['instances', '--log-format']);
    expect(format.code).toBe(ExitCode.Usage);
    expect(format.stderr).toContain('option --log-format: a value is missing');
    const env = await ws.thresher(['instances', '--store', 'memory:'], { env: { THRESHER_LOG_FORMAT: 'xml' } });
    expect(env.stderr).toContain('option --log-format: expected human, json, got "xml"');
  });
});

describe('a long command on a terminal', () => {
  it('thresher migrate redraws a status line with its counts and rate, and clears it before its report', async () => {
    const store = ws.path('progress.db');
    const repository = createSqliteRepository({ path: store });
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(definitions('greetings', serviceProcess));
    for (let i = 0; i < 3; i++) await engine.start('greeting');
    await engine.close();
    await repository.close();

    const run = await ws.thresher(['migrate', '--store', store], { isTTY: true });

    expect(run.code).toBe(ExitCode.Ok);
    const CLEAR = '\r\u001b[K';
    expect(run.stderr.startsWith(`${CLEAR}migrating: instances 1`)).toBe(true);
    expect(run.stderr).toMatch(/^[\s\S]{4}migrating: instances 1(, [\d.]+\/s)? · 0 documents migrated, 0 failed/);
    expect(run.stderr.endsWith(CLEAR)).toBe(true);
    expect(run.stdout).toContain('3 instances');
    const piped = await ws.thresher(['migrate', '--store', store]);
    expect(piped.stderr).toBe('');
  });
});
