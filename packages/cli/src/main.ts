/**
 * The `thresher` binary: the only place the CLI reads `process`.
 *
 * @module
 */
import { systemClock } from '@thresher/engine';
import { runCli } from './index.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  clock: systemClock,
  onStop: (listener) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      listener(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
});
