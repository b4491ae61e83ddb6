import type { Command } from '../command.js';
import { activateCommand } from './activate.js';
import { batchCommand } from './batch.js';
import { completeCommand } from './complete.js';
import { decideCommand } from './decide.js';
import { helpCommand } from './help.js';
import { inspectCommand } from './inspect.js';
import { instancesCommand } from './instances.js';
import { migrateCommand } from './migrate.js';
import { migrateInstanceCommand } from './migrate-instance.js';
import { modifyCommand } from './modify.js';
import { pruneCommand } from './prune.js';
import { resumeCommand } from './resume.js';
import { retryCommand } from './retry.js';
import { rollbackCommand } from './rollback.js';
import { runCommand } from './run.js';
import { sendCommand } from './send.js';
import { serveCommand } from './serve.js';
import { showCommand } from './show.js';
import { signalCommand } from './signal.js';
import { testCommand } from './test.js';
import { uiCommand } from './ui.js';
import { workerCommand } from './worker.js';

/** Every command `thresher` knows, in the order help lists them: each module brings its spec and its work. */
export const COMMANDS: readonly Command[] = [
  runCommand,
  inspectCommand,
  decideCommand,
  instancesCommand,
  showCommand,
  completeCommand,
  activateCommand,
  resumeCommand,
  retryCommand,
  modifyCommand,
  migrateInstanceCommand,
  batchCommand,
  sendCommand,
  signalCommand,
  testCommand,
  migrateCommand,
  pruneCommand,
  rollbackCommand,
  workerCommand,
  uiCommand,
  serveCommand,
  helpCommand(() => COMMANDS),
];

/** The command called `name`, if `thresher` has one. */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.spec.name === name);
}
