import type { Variables } from '@thresher/checkpoint';
import { commandSpec, eventName, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf, type Outcome } from '../drive.js';
import { type DriveArgs, driveFlags, variablesFlag } from '../drive-options.js';
import { worstExitCode } from '../exit-code.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const variables = variablesFlag('a variable the signal carries; v is JSON when it parses, else a string');

export const signalSpec = commandSpec({
  name: 'signal',
  usage: 'thresher signal NAME [--var k=v]... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
  summary: 'broadcast a signal to every stored instance waiting for it, then drive each until it ends or parks',
  positionals: [{ name: 'NAME', required: true, description: 'the signal name (bpmn:signal name)' }],
  options: { ...variables.options, ...driveFlags.options },
  examples: ['thresher signal open --handlers handlers.mjs', 'thresher signal recall --var reason=audit --json'],
});

const usage = signalSpec.usage;

/** `thresher signal`, parsed. */
export interface SignalArgs extends DriveArgs {
  signal: string;
  variables: Variables;
}

/** Parses `thresher signal` arguments. */
export function parseSignalArgs(argv: readonly string[]): Parsed<SignalArgs> {
  return parseWith(signalSpec, argv, ({ values, positionals }) => ({
    signal: eventName(positionals[0]!, 'signal', usage),
    ...variables.read(values, usage),
    ...driveFlags.read(values, usage),
  }));
}

/**
 * `thresher signal NAME`: broadcast a signal to every stored instance waiting for it, then drive each
 * (and any instance a signal thrown by those reaches meanwhile) until it ends or parks. Nobody
 * listening is not an error: exit 0.
 */
export const signalCommand = defineCommand(signalSpec, parseSignalArgs, async (args, { io, out }) => {
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
});
