import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { approvalProcess, CLI_MAIN, definitions, spawnThresher, Workspace } from './helpers.js';

// The terminal operator end to end: the built `thresher` on a real pseudo-terminal (util-linux `script`),
// the person's answers typed on its stdin once the prompt they answer is on screen.

const quote = (argument: string): string => `'${argument.replaceAll("'", `'\\''`)}'`;

interface PtyRun {
  /** What the terminal showed so far, `\r\n` read as `\n`. */
  screen(): string;
  /** Resolves once the screen matches `pattern` (after `from` characters); rejects if it exits first. */
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  /** Types a line, as a person would (the terminal echoes it). */
  type(line: string): void;
  /** Ends the input (the terminal's Ctrl-D). */
  end(): void;
  exit: Promise<{ code: number | null; screen: string }>;
}

/** `thresher ARGS` on a pseudo-terminal `columns` wide (unsized: the CLI reads no width), in `cwd`. */
function onTerminal(args: string[], options: { cwd: string; env?: Record<string, string>; columns?: number }): PtyRun {
  const line = [process.execPath, CLI_MAIN, ...args].map(quote).join(' ');
  const command = options.columns === undefined ? `exec ${line}` : `stty cols ${options.columns}; exec ${line}`;
  // The window's bold depends on these: each test says what it wants.
  const { NO_COLOR: _no, FORCE_COLOR: _force, ...env } = process.env;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let ended = false;
  const watchers = new Set<() => void>();
  const seen = (): void => {
    for (const watcher of [...watchers]) watcher();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8').replaceAll('\r\n', '\n');
    seen();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    seen();
  });
  const exit = new Promise<{ code: number | null; screen: string }>((resolve) =>
    child.on('close', (code) => {
      ended = true;
      seen();
      resolve({ code, screen });
    }),
  );
  return {
    screen: () => screen,
    waitFor: (pattern, from = 0) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(screen.slice(from))) resolve();
          else if (ended) reject(new Error(`thresher exited before the terminal showed ${pattern}:\n${screen}`));
          else return;
          watchers.delete(check);
        };
        watchers.add(check);
        check();
      }),
    type: (text) => child.stdin.write(`${text}\n`),
    end: () => child.stdin.end(),
    exit,
  };
}

const ws = new Workspace();
/** What the race model's `mark` handler writes to the terminal. */
const MARK = 'the mark handler ran';
const CONTINUE = /Continue\? \[y\/N\]: $/;
const CHOOSE = /Choose \[1-2\] \([^)]*\): $/;

beforeAll(() => {
  ws.write('approval.bpmn', definitions('approval-defs', approvalProcess));
  // A receive task waits for message `go` (key `=key`), then the approval's user task and gateway.
  ws.write(
    'relay.bpmn',
    definitions(
      'relay-defs',
      `  <bpmn:message id="m-go" name="go"><bpmn:extensionElements><zeebe:subscription correlationKey="=key" /></bpmn:extensionElements></bpmn:message>
${approvalProcess
  .replace('id="approval" name="Approval"', 'id="relay" name="Relay"')
  .replace(
    '<bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>',
    `<bpmn:startEvent id="start" />
    <bpmn:receiveTask id="wait-go" name="Send go" messageRef="m-go" />
    <bpmn:sequenceFlow id="f0" sourceRef="start" targetRef="wait-go" />`,
  )
  .replace('sourceRef="start" targetRef="approve"', 'sourceRef="wait-go" targetRef="approve"')}`,
    ),
  );
  // The user task races a one-second timer on a parallel branch: its progress line comes while asked. The
  // service task `mark` after the timer has a handler that writes MARK straight to the terminal.
  ws.write(
    'race.bpmn',
    definitions(
      'race-defs',
      `  <bpmn:process id="race" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:parallelGateway id="fork" />
    <bpmn:userTask id="approve" name="Approve order" />
    <bpmn:endEvent id="approved" />
    <bpmn:intermediateCatchEvent id="tick"><bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT1S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:serviceTask id="mark"><bpmn:extensionElements><zeebe:taskDefinition type="mark" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:endEvent id="ticked" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="fork" />
    <bpmn:sequenceFlow id="f2" sourceRef="fork" targetRef="approve" />
    <bpmn:sequenceFlow id="f3" sourceRef="approve" targetRef="approved" />
    <bpmn:sequenceFlow id="f4" sourceRef="fork" targetRef="tick" />
    <bpmn:sequenceFlow id="f5" sourceRef="tick" targetRef="mark" />
    <bpmn:sequenceFlow id="f6" sourceRef="mark" targetRef="ticked" />
  </bpmn:process>`,
    ),
  );
  ws.write(
    'race-handlers.mjs',
    `export default { mark: () => { process.stderr.write(${JSON.stringify(MARK)}); return {}; } };\n`,
  );
  // The user task has two seconds: an interrupting boundary timer takes the late path.
  ws.write(
    'deadline.bpmn',
    definitions(
      'deadline-defs',
      `  <bpmn:process id="deadline" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:userTask id="approve" name="Approve order" />
    <bpmn:boundaryEvent id="too-late" attachedToRef="approve"><bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT2S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:endEvent id="on-time" />
    <bpmn:endEvent id="late" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="approve" />
    <bpmn:sequenceFlow id="f2" sourceRef="approve" targetRef="on-time" />
    <bpmn:sequenceFlow id="f3" sourceRef="too-late" targetRef="late" />
  </bpmn:process>`,
    ),
  );
});

afterAll(() => ws.remove());

const store = (name: string): string[] => ['--store', `sqlite:${name}.db`];

/** Runs `thresher` without a terminal (stdin at its end at once) to its exit. */
const noTerminal = (args: string[]) => spawnThresher(args, { cwd: ws.dir }).exit;

describe('thresher run on a terminal', () => {
  it('should brief, approve on y, and complete the user task with the option chosen', async () => {
    // given
    const run = onTerminal(['run', 'approval.bpmn', ...store('approve')], { cwd: ws.dir, env: { NO_COLOR: '1' } });
    // when the person approves and picks option 1 (approved = true)
    await run.waitFor(CONTINUE);
    run.type('y');
    await run.waitFor(CHOOSE);
    run.type('1');
    const { code, screen } = await run.exit;
    // then
    expect(code).toBe(ExitCode.Ok);
    expect(screen).toContain(
      [
        '='.repeat(80),
        '  THIS RUN NEEDS YOU AT 1 TOUCHPOINT',
        '-'.repeat(80),
        '  Approve order',
        '    1  approve  internal | you choose',
        '='.repeat(80),
        'Continue? [y/N]: y',
        'Approved.',
      ].join('\n'),
    );
    expect(screen).toMatch(/ {2}TOUCHPOINT 1 of 1 | YOU CHOOSE\n-{80}\n {2}Approve order\n/);
    expect(screen).toMatch(/Choose \[1-2\] \(q to stop\): 1\nChosen: 1 /);
    expect(screen).toMatch(/Instance \S+ completed \(process approval\)/);
  });

  it('should ask again after an answer that is no number in range', async () => {
    const run = onTerminal(['run', 'approval.bpmn', '--store', 'memory:'], { cwd: ws.dir });
    await run.waitFor(CONTINUE);
    run.type('yes');
    await run.waitFor(CHOOSE);
    const before = run.screen().length;
    run.type('3');
    await run.waitFor(CHOOSE, before);
    run.type('2');
    const { code, screen } = await run.exit;
    expect(code).toBe(ExitCode.Ok);
    expect(screen).toContain('Enter a number from 1 to 2, or q to stop.');
    // option 2 is the gateway's default flow: the terminate end event
    expect(screen).toMatch(/Chosen: 2 /);
    expect(screen).toMatch(/terminated at rejected/);
  });

  it('should stop at q with exit 5, leaving the instance parked and durable', async () => {
    // given
    const run = onTerminal(['run', 'approval.bpmn', ...store('quit')], { cwd: ws.dir });
    await run.waitFor(CONTINUE);
    run.type('y');
    await run.waitFor(CHOOSE);
    // when
    run.type('q');
    const { code, screen } = await run.exit;
    // then it says how to continue, and a later resume without a terminal finds it parked at the task
    expect(code).toBe(ExitCode.Stopped);
    expect(screen).toContain('Stopped.');
    expect(screen).toMatch(/is parked \(process approval\): you stopped at user task "Approve order" \(approve\)/);
    const id = /thresher resume (\S+) --store/.exec(screen)?.[1];
    expect(id).toBeDefined();
    const resumed = await noTerminal(['resume', id!, ...store('quit')]);
    expect(resumed.code).toBe(ExitCode.Parked);
    expect(resumed.stdout).toContain('user task "Approve order" (approve) needs an answer');
  });

  it('should start nothing when the briefing is declined, exiting 4', async () => {
    const run = onTerminal(['run', 'approval.bpmn', ...store('decline')], { cwd: ws.dir });
    await run.waitFor(CONTINUE);
    run.type('n');
    const { code, screen } = await run.exit;
    expect(code).toBe(ExitCode.NotApproved);
    expect(screen).toContain('Continue? [y/N]: n\nNot approved.\n');
    expect(screen).not.toContain('YOU CHOOSE');
    const instances = await noTerminal(['instances', ...store('decline'), '--json']);
    expect(JSON.parse(instances.stdout)).toMatchObject({ instances: [] });
  });

  it('should read the end of input at a choice as no answer: exit 3, parked', async () => {
    const run = onTerminal(['run', 'approval.bpmn', '--store', 'memory:'], { cwd: ws.dir });
    await run.waitFor(CONTINUE);
    run.type('y');
    await run.waitFor(CHOOSE);
    run.end();
    const { code, screen } = await run.exit;
    expect(code).toBe(ExitCode.Parked);
    expect(screen).toContain('input ended before user task "Approve order" (approve) was answered');
  });

  it('should approve without asking under THRESHER_YES, and still ask the choice', async () => {
    const run = onTerminal(['run', 'approval.bpmn', '--store', 'memory:'], {
      cwd: ws.dir,
      env: { THRESHER_YES: '1' },
    });
    await run.waitFor(CHOOSE);
    run.type('1');
    const { code, screen } = await run.exit;
    expect(code).toBe(ExitCode.Ok);
    expect(screen).toContain('Approved by THRESHER_YES.');
    expect(screen).not.toContain('Continue?');
  });

  it('should answer a --choose task without asking it', async () => {
    const run = onTerminal(['run', 'approval.bpmn', '--store', 'memory:', '--choose', 'approve=f-yes'], {
      cwd: ws.dir,
    });
    await run.waitFor(CONTINUE);
    run.type('y');
    const { code, screen } = await run.exit;
    expect(code).toBe(ExitCode.Ok);
    expect(screen).not.toContain('YOU CHOOSE');
    expect(screen).toContain('approve: chose f-yes');
  });

  it('should draw the window 60 columns wide on a 40-column terminal and 100 on a 200-column one', async () => {
    for (const [columns, width] of [
      [40, 60],
      [200, 100],
    ] as const) {
      const run = onTerminal(['run', 'approval.bpmn', '--store', 'memory:'], { cwd: ws.dir, columns });
      await run.waitFor(CONTINUE);
      run.type('n');
      const { screen } = await run.exit;
      expect(screen.split('\n').find((row) => row.startsWith('='))).toBe('='.repeat(width));
    }
  });

  it('should make the title bold on a terminal, but not with NO_COLOR', async () => {
    for (const [env, bold] of [
      [{}, true],
      [{ NO_COLOR: '1' }, false],
    ] as const) {
      const run = onTerminal(['run', 'approval.bpmn', '--store', 'memory:'], { cwd: ws.dir, env });
      await run.waitFor(CONTINUE);
      run.type('n');
      const { screen } = await run.exit;
      expect(screen.includes('\x1b[1m  THIS RUN NEEDS YOU AT 1 TOUCHPOINT\x1b[0m')).toBe(bold);
      expect(screen).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT');
    }
  });

  it('should hold progress lines while the choice window is up and write them after it', async () => {
    // given a one-second timer that fires on a parallel branch while the user task is asked
    const run = onTerminal(['run', 'race.bpmn', '--store', 'memory:', '--handlers', 'race-handlers.mjs'], {
      cwd: ws.dir,
    });
    await run.waitFor(CONTINUE);
    run.type('y');
    await run.waitFor(/Choose|Variables as JSON/);
    // when the timer has fired: the handler after it wrote MARK to the terminal after the moment the timer's
    // progress line was due, and one terminal keeps the order of what one process writes to it
    const asked = run.screen().length;
    await run.waitFor(new RegExp(MARK), asked);
    // then the progress line was not written into the window while it waited
    expect(run.screen()).not.toMatch(/tick: timer fired/);
    run.type('{}');
    const { code, screen } = await run.exit;
    expect(code).toBe(ExitCode.Ok);
    expect(screen.indexOf('tick: timer fired')).toBeGreaterThan(screen.indexOf('Entered: {}'));
  });

  it("should show the time a task's timer leaves, and withdraw the question when it fires", async () => {
    const run = onTerminal(['run', 'deadline.bpmn', '--store', 'memory:'], { cwd: ws.dir, env: { NO_COLOR: '1' } });
    await run.waitFor(CONTINUE);
    run.type('y');
    const { code, screen } = await run.exit;
    expect(screen).toMatch(/TOUCHPOINT 1 of 1 | YOU CHOOSE +[12]s left\n/);
    expect(screen).toMatch(/Variables as JSON \([12]s left, q to stop\): /);
    expect(screen).toContain('No longer asked: the task was closed while it waited.');
    expect(code).toBe(ExitCode.Ok);
  });
});

describe('thresher send and resume on a terminal', () => {
  it('should brief on what is left after the message, then ask the user task', async () => {
    // given a run approved on a terminal that parks at the receive task
    const run = onTerminal(['run', 'relay.bpmn', '--var', 'key=k-1', ...store('relay')], {
      cwd: ws.dir,
      env: { NO_COLOR: '1' },
    });
    await run.waitFor(CONTINUE);
    run.type('y');
    const first = await run.exit;
    expect(first.code).toBe(ExitCode.Parked);
    expect(first.screen).toContain('THIS RUN NEEDS YOU AT 2 TOUCHPOINTS');
    expect(first.screen).toMatch(/1 {2}wait-go {2}inbound | your system calls us/);
    // when the message comes on a terminal
    const send = onTerminal(['send', 'go', '--key', 'k-1', ...store('relay')], { cwd: ws.dir, env: { NO_COLOR: '1' } });
    await send.waitFor(CONTINUE);
    expect(send.screen()).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT\n');
    expect(send.screen()).toContain('waiting now');
    send.type('y');
    await send.waitFor(CHOOSE);
    expect(send.screen()).toContain('TOUCHPOINT 2 of 2 | YOU CHOOSE');
    send.type('1');
    // then
    const { code } = await send.exit;
    expect(code).toBe(ExitCode.Ok);
  });

  it('should leave the instance parked with exit 4 when a resume briefing is declined', async () => {
    const run = onTerminal(['run', 'approval.bpmn', ...store('resume-decline')], { cwd: ws.dir });
    await run.waitFor(CONTINUE);
    run.type('y');
    await run.waitFor(CHOOSE);
    run.type('q');
    const id = /thresher resume (\S+) --store/.exec((await run.exit).screen)?.[1];
    const resume = onTerminal(['resume', id!, ...store('resume-decline')], { cwd: ws.dir });
    await resume.waitFor(CONTINUE);
    resume.type('n');
    const { code, screen } = await resume.exit;
    expect(code).toBe(ExitCode.NotApproved);
    expect(screen).toContain('the briefing was not approved');
    expect(screen).toContain(`thresher resume ${id}`);
  });
});

describe('the same commands without a terminal', () => {
  it('should neither brief nor prompt, and park at the user task with exit 3', async () => {
    const run = await noTerminal(['run', 'approval.bpmn', '--store', 'memory:']);
    expect(run.code).toBe(ExitCode.Parked);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/Continue\?|YOU CHOOSE|Choose \[/);
    expect(run.stdout).toContain('no answer for user task "Approve order" (approve) on stdin');
  });

  it('should answer a task from --choose by id or by number', async () => {
    const byId = await noTerminal(['run', 'approval.bpmn', '--store', 'memory:', '--choose', 'approve=f-no', '--json']);
    expect(byId.code).toBe(ExitCode.Ok);
    expect(JSON.parse(byId.stdout)).toMatchObject({ status: 'terminated', elementId: 'rejected' });
    const byNumber = await noTerminal([
      'run',
      'approval.bpmn',
      '--store',
      'memory:',
      '--choose',
      'approve=1',
      '--json',
    ]);
    expect(JSON.parse(byNumber.stdout)).toMatchObject({ status: 'completed', variables: { approved: true } });
  });

  it('should exit 2 naming a --choose value that names no option, leaving the instance parked', async () => {
    const run = await noTerminal(['run', 'approval.bpmn', '--store', 'memory:', '--choose', 'approve=maybe']);
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stdout).toContain('--choose approve=maybe names no option of user task approve; its options: 1 f-yes');
  });

  it('should exit 2 before anything starts for a --choose of an element that is no user task', async () => {
    const run = await noTerminal(['run', 'approval.bpmn', '--store', 'memory:', '--choose', 'aprove=1']);
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stderr).toContain('approval.bpmn has no user task aprove; its user tasks: approve');
  });
});
