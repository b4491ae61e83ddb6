/**
 * @module @thresher/cli
 *
 * The `thresher` command: run, inspect, complete and resume durable BPMN processes from a shell.
 * `runCli(argv, io)` runs one command line in-process and returns its exit code; everything it reads
 * and writes goes through `io`, so only the `thresher` binary (`main.ts`) touches `process`.
 *
 * Exit codes (`ExitCode`): 0 completed or terminated, 1 failure (incident, invalid model, restore
 * failure), 2 usage error, 3 parked waiting for something the CLI cannot give, 4 not approved (the
 * touchpoint briefing was declined), 5 stopped at a choice (`q`).
 */
export { runCli } from './cli.js';
export type {
  AdHocInfo,
  IncidentInfo,
  Outcome,
  OutcomeBase,
  ParkedOutcome,
  SubscriptionInfo,
  TaskInfo,
  TimerInfo,
} from './drive.js';
export { ExitCode } from './exit-code.js';
export type { CliIo, CliWritable } from './io.js';
