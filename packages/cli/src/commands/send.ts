import { COMMANDS, parseSendArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { ExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const usage = COMMANDS.send.usage;

/** How `send` names a message that nobody waits for. */
export function notWaitingText(message: string, key: string | undefined): string {
  return `no instance waits for message ${message} ${key === undefined ? 'without a key' : `with key ${key}`}`;
}

/**
 * `thresher send MESSAGE [--key K] [--ttl DURATION]`: correlate a message through the store (the waiting
 * instance is restored from it, takes the message and is driven on without prompting, as `complete` does).
 * A message nobody waits for is, by default, not kept: it is reported and the command exits 1. With
 * `--ttl` it is buffered in the store for that long instead (exit 0): the first instance to wait for it
 * within that time takes it.
 */
export async function sendCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseSendArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('send'));
    return ExitCode.Ok;
  }
  const buffering = args.ttl !== undefined && args.ttl.ms > 0;
  // A buffered message must outlive this command: the store is created if need be.
  const options = { store: args.store, handlers: args.handlers, create: buffering, usage };
  return withSession(io, out, options, async (session) => {
    const sent = {
      name: args.message,
      correlationKey: args.key ?? null,
      ...(args.messageId !== undefined ? { messageId: args.messageId } : {}),
    };
    const result = await session.engine.correlateMessage(args.message, {
      ...(args.key !== undefined ? { correlationKey: args.key } : {}),
      variables: args.variables,
      ...(args.messageId !== undefined ? { messageId: args.messageId } : {}),
      ...(buffering ? { timeToLive: args.ttl!.ms } : {}),
    });
    if (result.buffered === true) {
      const ttl = args.ttl!.text;
      out.print(
        `${notWaitingText(args.message, args.key)} yet; buffered for ${ttl}: the first instance to wait for it within that time takes it`,
      );
      out.document({ status: 'buffered', correlated: false, buffered: true, ttl, message: sent });
      return ExitCode.Ok;
    }
    if (!result.correlated || result.instanceId === null) {
      out.error(
        `thresher: ${notWaitingText(args.message, args.key)}; the message was not kept (give --ttl DURATION to buffer it for the first instance to wait for it, or send it again once one waits)`,
      );
      out.document({ status: 'not-correlated', correlated: false, message: sent });
      return ExitCode.Failed;
    }
    const outcome = await drive(session, result.instanceId, 'park', { waitTimers: args.waitTimers });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, correlated: true, message: sent });
    return exitCodeOf(outcome);
  });
}
