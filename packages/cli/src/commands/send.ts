import type { Variables } from '@thresher/checkpoint';
import { commandSpec, eventName, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type DriveArgs, driveFlags, parseDurationFlag, variablesFlag } from '../drive-options.js';
import { ExitCode } from '../exit-code.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const variables = variablesFlag('a variable the message carries; v is JSON when it parses, else a string');

export const sendSpec = commandSpec({
  name: 'send',
  usage:
    'thresher send MESSAGE [--key K] [--var k=v]... [--message-id ID] [--ttl DURATION] [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
  summary: 'deliver a message to the stored instance waiting for it, then drive that instance until it ends or parks',
  positionals: [{ name: 'MESSAGE', required: true, description: 'the message name (bpmn:message name)' }],
  options: {
    key: {
      type: 'string',
      placeholder: 'K',
      description: 'the correlation key the waiting subscription evaluated to (zeebe:subscription correlationKey)',
    },
    ...variables.options,
    'message-id': {
      type: 'string',
      placeholder: 'ID',
      description: 'the message id: the same id delivered to the same instance again changes nothing',
    },
    ttl: {
      type: 'string',
      placeholder: 'DURATION',
      description:
        'when no instance waits, keep the message this long (ISO 8601, e.g. PT1H) for the first one that does; default: not kept',
    },
    ...driveFlags.options,
  },
  examples: [
    'thresher send payment-received --key A-1001 --var amount=120 --handlers handlers.mjs',
    'thresher send shipped --key A-1001 --message-id ship-77 --json',
    'thresher send payment-received --key A-1002 --var amount=80 --ttl PT1H',
  ],
});

const usage = sendSpec.usage;

/** `thresher send`, parsed. */
export interface SendArgs extends DriveArgs {
  message: string;
  /** `--key`; undefined matches subscriptions without a correlation key. */
  key: string | undefined;
  variables: Variables;
  messageId: string | undefined;
  /** `--ttl`: how long a message nothing takes is buffered, as given and in ms; undefined: not buffered. */
  ttl: { text: string; ms: number } | undefined;
}

/** Reads `--ttl` (an ISO 8601 duration) into milliseconds; a malformed duration is a `UsageError` saying why. */
export function parseTtl(value: string | undefined, usage: string): { text: string; ms: number } | undefined {
  return value === undefined ? undefined : { text: value, ms: parseDurationFlag('--ttl', value, usage) };
}

/** Parses `thresher send` arguments. */
export function parseSendArgs(argv: readonly string[]): Parsed<SendArgs> {
  return parseWith(sendSpec, argv, ({ values, positionals }) => ({
    message: eventName(positionals[0]!, 'message', usage),
    key: text(values, 'key'),
    ...variables.read(values, usage),
    messageId: text(values, 'message-id'),
    ttl: parseTtl(text(values, 'ttl'), usage),
    ...driveFlags.read(values, usage),
  }));
}

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
export const sendCommand = defineCommand(sendSpec, parseSendArgs, async (args, { io, out }) => {
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
    const outcome = await drive(
      session,
      result.instanceId,
      io.isTTY ? 'prompt' : 'park',
      // On a terminal the person is briefed on what is left and asked the next user tasks; else it parks.
      { waitTimers: args.waitTimers, brief: true },
    );
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, correlated: true, message: sent });
    return exitCodeOf(outcome);
  });
});
