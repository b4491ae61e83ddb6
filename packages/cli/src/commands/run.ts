import { COMMANDS, parseRunArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { formatModelError, isModelError, modelErrorDocument, readBpmn } from '../model-report.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const usage = COMMANDS.run.usage;

/** The process to start: `--process`, else the file's only executable process. */
export function pickProcess(processes: readonly string[], requested: string | undefined, file: string): string {
  if (requested !== undefined) {
    if (processes.includes(requested)) return requested;
    throw new UsageError(
      `--process ${requested}: ${file} has no executable process "${requested}"; it has ${processes.join(', ') || 'none'}`,
      usage,
    );
  }
  const [only, ...others] = processes;
  if (only === undefined) {
    throw new FailedError(`${file} has no executable process; mark the process to run with isExecutable="true"`);
  }
  if (others.length > 0) {
    throw new UsageError(
      `${file} has several executable processes; choose one with --process: ${processes.join(', ')}`,
      usage,
    );
  }
  return only;
}

/** `thresher run FILE.bpmn …`: deploy, start, drive until the instance ends or parks. */
export async function runCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseRunArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('run'));
    return ExitCode.Ok;
  }
  const xml = await readBpmn(args.file, io.cwd, usage);
  return withSession(io, out, { store: args.store, handlers: args.handlers, create: true, usage }, async (session) => {
    const { engine } = session;
    let deployment: Awaited<ReturnType<typeof engine.deploy>>;
    try {
      deployment = await engine.deploy(xml);
    } catch (error) {
      if (!isModelError(error)) throw error;
      out.error(formatModelError(error, args.file));
      out.document(modelErrorDocument(error, args.file));
      return ExitCode.Failed;
    }
    out.progress(
      `deployed ${deployment.definitionId} version ${deployment.version} (${deployment.digest.slice(0, 12)})`,
    );
    const processId = pickProcess(deployment.processes, args.process, args.file);
    const instanceId = await engine.start(processId, {
      variables: args.variables,
      digest: deployment.digest,
      ...(args.businessKey !== undefined ? { businessKey: args.businessKey } : {}),
    });
    // --yes wins over a terminal: asking for it means "do not ask me".
    const outcome = await drive(session, instanceId, args.yes ? 'yes' : io.isTTY ? 'prompt' : 'stdin', {
      waitTimers: args.waitTimers,
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, deployment });
    return exitCodeOf(outcome);
  });
}
