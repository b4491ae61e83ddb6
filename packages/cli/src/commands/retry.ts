import type { IncidentRecord } from '@thresher/checkpoint';
import { EngineError, EngineErrorCode, type SettledState } from '@thresher/engine';
import { COMMANDS, parseRetryArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { FailedError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

/** The incidents INCIDENT names: its full id, its local id or its element; all when it is undefined. */
export function selectIncidents(
  instanceId: string,
  incidents: readonly IncidentRecord[],
  incident: string | undefined,
): IncidentRecord[] {
  if (incident === undefined) return [...incidents];
  const chosen = incidents.filter(
    (candidate) =>
      candidate.id === incident || candidate.id === `${instanceId}/${incident}` || candidate.nodeId === incident,
  );
  if (chosen.length === 0) {
    const list = incidents.map((candidate) => `${candidate.nodeId} [${candidate.id}]`).join(', ');
    throw new FailedError(`instance ${instanceId} has no incident "${incident}"; its incidents: ${list || 'none'}`);
  }
  return chosen;
}

/** `thresher retry ID [INCIDENT]`: resolve incidents (failed jobs get fresh retries) and drive on. */
export async function retryCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseRetryArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('retry'));
    return ExitCode.Ok;
  }
  const options = { store: args.store, handlers: args.handlers, create: false, usage: COMMANDS.retry.usage };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    let state: SettledState;
    try {
      state = await engine.settled(args.id);
    } catch (error) {
      if (EngineError.is(error) && error.code === EngineErrorCode.NotFound) {
        throw new FailedError(`no instance ${args.id}`, { cause: error });
      }
      throw error;
    }
    const incidents = state.status === 'waiting' ? selectIncidents(args.id, state.incidents, args.incident) : [];
    if (incidents.length === 0) out.progress(`[${args.id.slice(0, 8)}] no incidents to retry`);
    for (const incident of incidents) {
      await engine.retryIncident(incident.id);
      out.progress(`[${args.id.slice(0, 8)}] ${incident.nodeId}: retrying incident ${incident.id}`);
    }
    const outcome = await drive(session, args.id, args.yes ? 'yes' : io.isTTY ? 'prompt' : 'park', {
      waitTimers: args.waitTimers,
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, retried: incidents.map((incident) => incident.id) });
    return exitCodeOf(outcome);
  });
}
