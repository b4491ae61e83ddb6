import { COMMANDS, parseResumeArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { drive, exitCodeOf, type Outcome } from '../drive.js';
import { ExitCode, worstExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

/**
 * `thresher resume ID | --all`: restore instances from the store and drive each until it ends or parks.
 * One that cannot be restored is reported (exit 1) and the others still go on.
 */
export async function resumeCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseResumeArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('resume'));
    return ExitCode.Ok;
  }
  const usage = COMMANDS.resume.usage;
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const report = await session.engine.recover(args.id !== undefined ? { instanceIds: [args.id] } : {});
    const failed = report.failed.map(({ instanceId, error }) => ({
      instanceId,
      error: { message: error.message, ...('code' in error ? { code: String(error.code) } : {}) },
    }));
    for (const failure of failed)
      out.error(`thresher: cannot restore instance ${failure.instanceId}: ${failure.error.message}`);
    if (report.restored.length === 0 && failed.length === 0) out.print('no running instances to resume');
    const mode = args.yes ? 'yes' : io.isTTY ? 'prompt' : 'park';
    const outcomes: Outcome[] = [];
    for (const instanceId of report.restored) {
      const outcome = await drive(session, instanceId, mode, { waitTimers: args.waitTimers });
      outcomes.push(outcome);
      out.print(formatOutcome(outcome, session));
    }
    out.document({ restored: report.restored, failed, outcomes });
    return worstExitCode([...(failed.length > 0 ? [ExitCode.Failed] : []), ...outcomes.map(exitCodeOf)]);
  });
}
