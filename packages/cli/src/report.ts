import { keyText, type Outcome, type ParkedOutcome } from './drive.js';
import { formatVariables, humanDuration } from './output.js';
import type { Session } from './session.js';
import { describeStore } from './store.js';

/** Why a `memory:` incident has no retry command, and how to get one. */
const MEMORY_INCIDENT =
  'The memory: store keeps nothing: the instance is gone with this process, so it cannot be retried. ' +
  'To retry an incident later, run it on a file store: --store ./thresher.db, or no --store for ./.thresher/thresher.db.';

/** The human text of an outcome, for stdout. */
export function formatOutcome(outcome: Outcome, session: Session): string {
  const process = outcome.processId ? ` (process ${outcome.processId})` : '';
  const variables = `Variables:\n${formatVariables(outcome.variables)}`;
  switch (outcome.status) {
    case 'completed':
      return `Instance ${outcome.instanceId} completed${process}.\n${variables}`;
    case 'terminated':
      return `Instance ${outcome.instanceId} terminated at ${outcome.elementId ?? 'an unknown element'}${process}.\n${variables}`;
    case 'incident': {
      const count = outcome.incidents.length === 1 ? '1 incident' : `${outcome.incidents.length} incidents`;
      const lines = [`Instance ${outcome.instanceId} is stopped by ${count}${process}:`];
      for (const incident of outcome.incidents) {
        lines.push(`  ${incident.elementId}: ${incident.message}`);
        lines.push(`    incident ${incident.id} (${incident.kind})`);
        if (incident.retry) lines.push(`    fix the cause, then retry: ${incident.retry}`);
      }
      if (outcome.incidents.some((incident) => !incident.retry)) lines.push(MEMORY_INCIDENT);
      if (outcome.userTasks.length > 0) {
        lines.push(`Open user tasks: ${outcome.userTasks.map((task) => `${task.elementId} [${task.id}]`).join(', ')}`);
      }
      lines.push(variables);
      return lines.join('\n');
    }
    case 'parked': {
      const tasks = outcome.userTasks.map(
        (task) => `user task ${task.name ? `"${task.name}" ` : ''}(${task.elementId}) [task ${task.id}]`,
      );
      const waitsOnEvents =
        outcome.timers.length > 0 || outcome.subscriptions.length > 0 || outcome.adHocSubProcesses.length > 0;
      const lines = [`Instance ${outcome.instanceId} is parked${process}: ${outcome.reason}.`];
      if (tasks.length > 0) lines.push(`It waits on ${tasks.join(', ')}.`);
      else if (!waitsOnEvents) lines.push('It waits for something the CLI cannot give.');
      lines.push(...eventLines(outcome, session.io.clock.now()));
      if (outcome.invalidAnswer) lines.push(`Error: ${outcome.invalidAnswer}`);
      if (outcome.commands.length === 0) {
        lines.push(
          'The memory: store keeps nothing: the instance is gone once thresher exits. Use --store sqlite:PATH to continue it later.',
        );
      } else if (tasks.length > 0) {
        lines.push(`It is stored in ${describeStore(session.store)}. Continue it with:`);
        const completes = outcome.commands.slice(0, outcome.userTasks.length);
        for (const command of completes) lines.push(`  ${command}`);
        lines.push('or resume it on a terminal (to be asked) or with --yes:');
        lines.push(`  ${outcome.commands.at(-1)}`);
      } else if (waitsOnEvents) {
        lines.push(`It is stored in ${describeStore(session.store)}; the commands above continue it.`);
      } else {
        lines.push(`It is stored in ${describeStore(session.store)}. Resume it with:`);
        lines.push(`  ${outcome.commands.at(-1)}`);
      }
      lines.push(variables);
      return lines.join('\n');
    }
  }
}

/**
 * One line per message, signal, ad-hoc sub-process and timer a parked instance waits for, each with the
 * command that continues it (none for `memory:`).
 */
function eventLines(outcome: ParkedOutcome, now: number): string[] {
  const lines: string[] = [];
  for (const subscription of outcome.subscriptions) {
    const what =
      subscription.kind === 'message'
        ? `waiting for message ${subscription.name} (${keyText(subscription.correlationKey)})`
        : `waiting for signal ${subscription.name}`;
    const how = subscription.command
      ? ` — ${subscription.kind === 'message' ? 'send' : 'broadcast'} it with: ${subscription.command}`
      : '';
    lines.push(`  ${what} at ${subscription.elementId}${how}`);
  }
  for (const adHoc of outcome.adHocSubProcesses) {
    const how = adHoc.command ? ` — activate elements with: ${adHoc.command}` : '';
    lines.push(
      `  waiting for activations of ad-hoc sub-process ${adHoc.elementId} (it can activate ${adHoc.activatable.join(', ')})${how}`,
    );
  }
  const resume = outcome.commands.at(-1);
  for (const timer of outcome.timers) {
    const inMs = timer.dueAt - now;
    const when = inMs > 0 ? `in ${humanDuration(inMs)}` : 'now';
    lines.push(`  waiting for timer ${timer.elementId}, due ${timer.due} (${when})`);
    if (resume && timer.waitCommand) {
      lines.push(`    once it is due, resume it with: ${resume}`);
      lines.push(`    or wait for it now: ${timer.waitCommand}`);
    }
  }
  return lines;
}
