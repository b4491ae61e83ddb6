import { PassThrough } from 'node:stream';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine, runWithOperator } from '@thresher/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChoose } from '../src/drive-options.js';
import { UsageError } from '../src/errors.js';
import { ExitCode, worstExitCode } from '../src/exit-code.js';
import { LineReader } from '../src/io.js';
import { noSuchOption, pickOption } from '../src/operator/choose.js';
import { envApproves, TerminalOperator, type TerminalOperatorOptions } from '../src/operator/terminal-operator.js';
import { createOutput } from '../src/output.js';
import { approvalProcess, definitions, Workspace } from './helpers.js';
import { question, touchpoint } from './operator-fixtures.js';

/** A terminal operator on fake streams: `type` feeds lines, `screen()` is what it showed, `end()` ends input. */
function terminal(options: Partial<TerminalOperatorOptions> = {}) {
  const input = new PassThrough();
  const reader = new LineReader(input);
  let screen = '';
  let holds = 0;
  const operator = new TerminalOperator({
    readLine: (signal) => reader.next(signal),
    show: (text) => {
      screen += text;
    },
    hold: () => {
      holds += 1;
      return () => {
        holds -= 1;
      };
    },
    style: () => ({ width: 80, bold: false }),
    now: () => 1_000_000,
    ...options,
  });
  return {
    operator,
    type: (...lines: string[]) => input.write(lines.map((line) => `${line}\n`).join('')),
    end: () => input.end(),
    screen: () => screen,
    holds: () => holds,
  };
}

describe('TerminalOperator#approve', () => {
  it('should show the briefing, ask Continue? [y/N] and approve on y', async () => {
    const t = terminal();
    t.type('y');
    expect(await t.operator.approve([touchpoint()])).toBe(true);
    expect(t.screen()).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT');
    expect(t.screen().endsWith('Continue? [y/N]: Approved.\n')).toBe(true);
  });

  it('should approve on yes, in any case', async () => {
    const t = terminal();
    t.type(' YES ');
    expect(await t.operator.brief([touchpoint()])).toBe('approved');
  });

  it('should decline on n and on anything but y or yes', async () => {
    const t = terminal();
    t.type('n', 'sure');
    expect(await t.operator.brief([touchpoint()])).toBe('declined');
    expect(t.screen().endsWith('Not approved.\n')).toBe(true);
    expect(await t.operator.brief([touchpoint()])).toBe('declined');
  });

  it('should default to no on an empty answer', async () => {
    const t = terminal();
    t.type('');
    expect(await t.operator.approve([touchpoint()])).toBe(false);
  });

  it('should not approve when the input ends before an answer', async () => {
    const t = terminal();
    t.end();
    expect(await t.operator.brief([touchpoint()])).toBe('ended');
    expect(t.screen()).toContain('Not approved: no answer.');
  });

  it('should approve without asking when --yes or THRESHER_YES says so, still showing the briefing', async () => {
    const t = terminal({ approvedBy: '--yes' });
    expect(await t.operator.approve([touchpoint()])).toBe(true);
    expect(t.screen()).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT');
    expect(t.screen()).not.toContain('Continue?');
    expect(t.screen().endsWith('Approved by --yes.\n')).toBe(true);
  });

  it('should hold other output while the briefing is up and release it after', async () => {
    const t = terminal();
    const answer = t.operator.approve([touchpoint()]);
    expect(t.holds()).toBe(1);
    t.type('y');
    await answer;
    expect(t.holds()).toBe(0);
  });
});

describe('envApproves', () => {
  it('should read THRESHER_YES as approval when set, not empty, not 0 or false', () => {
    expect(envApproves('1')).toBe(true);
    expect(envApproves('yes')).toBe(true);
    for (const value of [undefined, '', ' ', '0', 'false', 'FALSE']) expect(envApproves(value)).toBe(false);
  });
});

describe('TerminalOperator#choose', () => {
  it('should answer with the id of the option whose number was typed and write it back', async () => {
    const t = terminal();
    t.type('2');
    expect(await t.operator.choose(question())).toBe('no');
    expect(t.screen()).toContain('Choose [1-2] (q to stop): Chosen: 2 Reject\n');
  });

  it('should ask again on anything but a number in range', async () => {
    const t = terminal();
    t.type('yes', '0', '3', '', '1');
    expect(await t.operator.choose(question())).toBe('yes');
    expect(t.screen().match(/Enter a number from 1 to 2, or q to stop\./g)).toHaveLength(4);
    expect(t.screen()).toContain('Chosen: 1 Approve\n');
  });

  it('should say how long is left in the prompt when the task has a timer', async () => {
    const t = terminal();
    t.type('1');
    await t.operator.choose(question({ dueAt: 1_000_000 + 292_000 }));
    expect(t.screen()).toContain('Choose [1-2] (4m 52s left, q to stop): ');
  });

  it('should stop on q, answering null', async () => {
    const t = terminal();
    t.type('q');
    expect(await t.operator.choose(question())).toBeNull();
    expect(t.screen()).toContain('Stopped.\n');
  });

  it('should tell q from the end of input', async () => {
    const t = terminal();
    t.type('Q');
    expect(await t.operator.ask(question())).toEqual({ kind: 'stop' });
    t.end();
    expect(await t.operator.ask(question())).toEqual({ kind: 'ended' });
  });

  it('should take one JSON object line when the task has no options, asking again on anything else', async () => {
    const t = terminal();
    t.type('approved=true', '[1]', '{"approved": true}');
    const answer = await t.operator.choose(question({ options: [], source: 'variables' }));
    expect(answer).toEqual({ approved: true });
    expect(t.screen()).toContain('Variables as JSON (q to stop): ');
    expect(t.screen().match(/Enter one JSON object on one line/g)).toHaveLength(2);
    expect(t.screen()).toContain('Entered: {"approved":true}\n');
  });

  it('should number the touchpoint out of the briefing it was shown', async () => {
    const t = terminal();
    t.type('y', '1');
    await t.operator.approve([touchpoint(), touchpoint({ index: 1, elementId: 'ship' })]);
    await t.operator.choose(question());
    expect(t.screen()).toContain('  TOUCHPOINT 1 of 2 | YOU CHOOSE\n');
  });

  it('should give the question up when stopped, and keep the line for the next question', async () => {
    const t = terminal();
    const asked = t.operator.ask(question());
    t.operator.stop();
    expect(await asked).toEqual({ kind: 'withdrawn' });
    t.type('2');
    expect(await t.operator.choose(question())).toBe('no');
  });

  it('should give the question up when the caller aborts it', async () => {
    const t = terminal();
    const closed = new AbortController();
    const asked = t.operator.ask(question(), { signal: closed.signal });
    closed.abort();
    expect(await asked).toEqual({ kind: 'withdrawn' });
    expect(t.holds()).toBe(0);
  });
});

describe('--choose', () => {
  const options = question().options;

  it('should name an option by its id first', () => {
    expect(pickOption(options, 'no')?.id).toBe('no');
    // an id that looks like a number wins over the option numbered so
    const numeric = [
      { id: '2', label: 'Two', variables: {} },
      { id: 'x', label: 'X', variables: {} },
    ];
    expect(pickOption(numeric, '2')?.label).toBe('Two');
  });

  it('should name an option by its number otherwise', () => {
    expect(pickOption(options, '1')?.id).toBe('yes');
    expect(pickOption(options, '2')?.id).toBe('no');
  });

  it('should name no option with an unknown id or a number out of range', () => {
    for (const value of ['maybe', '0', '3', '01', '-1']) expect(pickOption(options, value)).toBeUndefined();
    expect(noSuchOption('approve', 'maybe', options)).toBe(
      '--choose approve=maybe names no option of user task approve; its options: 1 yes (Approve), 2 no (Reject)',
    );
  });

  it('should read ELEMENT=OPTION flags into a map by element', () => {
    expect([...parseChoose(['approve=yes', 'ship=2'], 'u')]).toEqual([
      ['approve', 'yes'],
      ['ship', '2'],
    ]);
  });

  it('should refuse a --choose without =, with an empty side, or twice for one element', () => {
    for (const values of [['approve'], ['=yes'], ['approve='], ['approve=1', 'approve=2']]) {
      expect(() => parseChoose(values, 'u')).toThrow(UsageError);
    }
  });
});

describe('worstExitCode', () => {
  it('should rank a failure over not approved over stopped over parked over success', () => {
    expect(worstExitCode([ExitCode.Parked, ExitCode.Stopped, ExitCode.Ok])).toBe(ExitCode.Stopped);
    expect(worstExitCode([ExitCode.Stopped, ExitCode.NotApproved, ExitCode.Parked])).toBe(ExitCode.NotApproved);
    expect(worstExitCode([ExitCode.NotApproved, ExitCode.Failed])).toBe(ExitCode.Failed);
    expect(worstExitCode([ExitCode.Ok, ExitCode.Parked])).toBe(ExitCode.Parked);
    expect(worstExitCode([])).toBe(ExitCode.Ok);
  });
});

describe('Output#hold', () => {
  it('should hold progress lines while a window is up and write them, in order, when it closes', () => {
    // given an output whose screen and stderr are one terminal
    let terminalText = '';
    const write = (chunk: string) => (terminalText += chunk);
    const out = createOutput(
      {
        stdin: new PassThrough(),
        stdout: { write },
        stderr: { write },
        env: {},
        cwd: '.',
        isTTY: true,
        clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} },
      },
      false,
    );
    // when progress arrives while a window is up
    const release = out.hold();
    out.show('=== window ===\n');
    out.progress('[i-1] charge: running');
    out.progress('[i-1] charge: done');
    out.show('Choose: 1\n');
    release();
    release(); // a second release of one hold changes nothing
    // then it lands after the window, not inside it
    expect(terminalText).toBe('=== window ===\nChoose: 1\n[i-1] charge: running\n[i-1] charge: done\n');
  });

  it('should show on stdout, or on stderr under --json', () => {
    let stdout = '';
    let stderr = '';
    const io = {
      stdin: new PassThrough(),
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
      cwd: '.',
      isTTY: true,
      clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} },
    };
    createOutput(io, false).show('human');
    createOutput(io, true).show('json');
    expect([stdout, stderr]).toEqual(['human', 'json']);
  });
});

describe('thresher run --json on a terminal', () => {
  const ws = new Workspace();
  ws.write('approval.bpmn', definitions('approval-defs', approvalProcess));
  afterAll(() => ws.remove());

  it('should show the briefing on stderr and print one declined document on stdout, exiting 4', async () => {
    // when the person answers no
    const run = await ws.thresher(['run', 'approval.bpmn', '--store', 'memory:', '--json'], {
      isTTY: true,
      stdin: 'n\n',
    });
    // then
    expect(run.code).toBe(ExitCode.NotApproved);
    expect(run.json()).toMatchObject({
      status: 'declined',
      processId: 'approval',
      touchpoints: [{ index: 0, elementId: 'approve', direction: 'internal', state: 'ahead' }],
    });
    expect(run.stderr).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT');
    expect(run.stderr).toContain('Continue? [y/N]: Not approved.');
  });

  it('should stop at q with a parked document marked stopped, exiting 5', async () => {
    const run = await ws.thresher(['run', 'approval.bpmn', '--store', 'sqlite:quit.db', '--json'], {
      isTTY: true,
      stdin: 'y\nq\n',
    });
    expect(run.code).toBe(ExitCode.Stopped);
    expect(run.json()).toMatchObject({ status: 'parked', operator: 'stopped', userTasks: [{ elementId: 'approve' }] });
  });
});

describe("TerminalOperator as the engine's Operator", () => {
  it('should be briefed and answer the user task through runWithOperator', async () => {
    // given an engine with the approval process and a person who approves and picks option 1
    const engine = new Engine({ repository: createMemoryRepository() });
    try {
      await engine.deploy(definitions('approval-defs', approvalProcess));
      const t = terminal();
      t.type('y', '1');
      // when
      const run = await runWithOperator(engine, { processId: 'approval' }, t.operator);
      // then
      expect(run).toMatchObject({ outcome: 'settled', state: { status: 'completed' } });
      expect(t.screen()).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT');
      expect(t.screen()).toContain('TOUCHPOINT 1 of 1 | YOU CHOOSE');
    } finally {
      await engine.close();
    }
  });
});
