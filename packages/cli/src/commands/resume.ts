import { commandSpec, flag, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf, type Outcome } from '../drive.js';
import { type AnswerArgs, answerFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode, worstExitCode } from '../exit-code.js';
import { createTerminalOperator } from '../operator/terminal-operator.js';
import { ProgressLine } from '../progress-line.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

export const resumeSpec = commandSpec({
  name: 'resume',
  usage:
    'thresher resume ID | --all [--handlers MODULE] [--store URL] [--yes] [--choose ELEMENT=OPTION]... [--wait-timers DURATION] [--json]',
  summary: 'restore instances from the store (after a crash) and drive each until it ends or parks',
  positionals: [{ name: 'ID', required: false, description: 'the instance id (or --all)' }],
  options: {
    all: { type: 'boolean', description: 'every running instance in the store' },
    ...answerFlags.options,
  },
  examples: [
    'thresher resume --all --handlers handlers.mjs',
    'thresher resume 3f0c… --handlers handlers.mjs --yes',
    'thresher resume 3f0c… --wait-timers PT2H',
  ],
});

const usage = resumeSpec.usage;

/** `thresher resume`, parsed. */
export interface ResumeArgs extends AnswerArgs {
  /** undefined with `--all`. */
  id: string | undefined;
}

/** Parses `thresher resume` arguments: exactly one of ID and `--all`. */
export function parseResumeArgs(argv: readonly string[]): Parsed<ResumeArgs> {
  return parseWith(resumeSpec, argv, ({ values, positionals }) => {
    const all = flag(values, 'all');
    if (all && positionals[0] !== undefined) {
      throw new UsageError(
        `give an instance ID or --all, not both (got ${JSON.stringify(positionals[0])} and --all)`,
        usage,
      );
    }
    if (!all && positionals[0] === undefined) throw new UsageError('missing ID (or --all)', usage);
    return { id: positionals[0], ...answerFlags.read(values, usage) };
  });
}

/**
 * `thresher resume ID | --all`: restore instances from the store and drive each until it ends or parks.
 * One that cannot be restored is reported (exit 1) and the others still go on. On a terminal each is
 * briefed first; a `q` at a choice stops the command: the instances after it are not driven.
 */
export const resumeCommand = defineCommand(resumeSpec, parseResumeArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const line = new ProgressLine(io, out, 'restoring: instances');
    const report = await session.engine.recover({
      ...(args.id !== undefined ? { instanceIds: [args.id] } : {}),
      onProgress: (tried, total) => line.update(tried, total, '', tried === total),
    });
    line.end();
    const failed = report.failed.map(({ instanceId, error }) => ({
      instanceId,
      error: { message: error.message, ...('code' in error ? { code: String(error.code) } : {}) },
    }));
    for (const failure of failed)
      out.error(`thresher: cannot restore instance ${failure.instanceId}: ${failure.error.message}`);
    if (report.restored.length === 0 && failed.length === 0) out.print('no running instances to resume');
    const mode = args.yes ? 'yes' : io.isTTY ? 'prompt' : 'park';
    const operator = io.isTTY ? createTerminalOperator(session, args.yes) : undefined;
    const outcomes: Outcome[] = [];
    const notDriven: string[] = [];
    for (const instanceId of report.restored) {
      if (outcomes.some((outcome) => outcome.status === 'parked' && outcome.operator === 'stopped')) {
        notDriven.push(instanceId);
        continue;
      }
      const outcome = await drive(session, instanceId, mode, {
        waitTimers: args.waitTimers,
        choose: args.choose,
        ...(operator ? { operator, brief: true } : {}),
      });
      outcomes.push(outcome);
      out.print(formatOutcome(outcome, session));
    }
    if (notDriven.length > 0) out.print(`Not driven after the stop (still stored): ${notDriven.join(', ')}`);
    out.document({ restored: report.restored, failed, outcomes, ...(notDriven.length > 0 ? { notDriven } : {}) });
    return worstExitCode([...(failed.length > 0 ? [ExitCode.Failed] : []), ...outcomes.map(exitCodeOf)]);
  });
});
