import { COMMANDS, parseSignalArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { drive, exitCodeOf, type Outcome } from '../drive.js';
import { ExitCode, worstExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const usage = COMMANDS.signal.usage;

/**
 * `thresher signal NAME`: broadcast a signal to every stored instance waiting for it, then drive each
 * (and any instance a signal thrown by those reaches meanwhile) until it ends or parks. Nobody
 * listening is not an error: exit 0.
 */
export async function signalCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseSignalArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('signal'));
    return ExitCode.Ok;
  }
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    // Instances that take a signal while this command runs (this one, or one a model throws): each is driven.
    const touched = new Set<string>();
    const unsubscribe = engine.on('signal.received', (event) => touched.add(event.instanceId));
    try {
      const reached = await engine.broadcastSignal(args.signal, { variables: args.variables });
      if (reached.length === 0) out.print(`no instance waits for signal ${args.signal}`);
      const outcomes: Outcome[] = [];
      const driven = new Set<string>();
      for (let queue = [...reached]; queue.length > 0; queue = [...touched].filter((id) => !driven.has(id))) {
        for (const instanceId of queue) {
          driven.add(instanceId);
          const outcome = await drive(session, instanceId, 'park', { waitTimers: args.waitTimers });
          outcomes.push(outcome);
          out.print(formatOutcome(outcome, session));
        }
      }
      out.document({ signal: args.signal, reached, outcomes });
      return worstExitCode(outcomes.map(exitCodeOf));
    } finally {
      unsubscribe();
    }
  });
}
