import type { Outcome } from './drive.js';
import { formatVariables } from './output.js';
import type { Session } from './session.js';
import { describeStore } from './store.js';

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
        lines.push(`    fix the cause, then retry: ${incident.retry}`);
      }
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
      const lines = [
        `Instance ${outcome.instanceId} is parked${process}: ${outcome.reason}.`,
        tasks.length > 0 ? `It waits on ${tasks.join(', ')}.` : 'It waits for something the CLI cannot give.',
      ];
      if (outcome.invalidAnswer) lines.push(`Error: ${outcome.invalidAnswer}`);
      if (outcome.commands.length === 0) {
        lines.push(
          'The memory: store keeps nothing: the instance is gone once thresher exits. Use --store sqlite:PATH to continue it later.',
        );
      } else {
        lines.push(`It is stored in ${describeStore(session.store)}. Continue it with:`);
        for (const command of outcome.commands.slice(0, -1)) lines.push(`  ${command}`);
        lines.push('or resume it on a terminal (to be asked) or with --yes:');
        lines.push(`  ${outcome.commands.at(-1)}`);
      }
      lines.push(variables);
      return lines.join('\n');
    }
  }
}
