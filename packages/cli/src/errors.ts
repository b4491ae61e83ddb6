import { ExitCode } from './exit-code.js';

/** Marks CLI errors so checks survive duplicate package copies. */
const CLI_ERROR = Symbol.for('thresher.cli.error');

/** Stable codes of the errors `thresher` reports itself (engine and store errors keep their own). */
export const CliErrorCode = {
  Usage: 'THRESHER_CLI_USAGE',
  Failed: 'THRESHER_CLI_FAILED',
} as const;
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** Base class of the errors the CLI raises; carries the exit code it ends with. */
export class CliError extends Error {
  readonly [CLI_ERROR] = true;
  readonly code: CliErrorCode;
  readonly exitCode: ExitCode;

  constructor(code: CliErrorCode, exitCode: ExitCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }

  static is(value: unknown): value is CliError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CLI_ERROR] === true;
  }
}

/**
 * The command line is unusable: an unknown flag, a missing argument, a `--var` without `=`, a handlers
 * module that does not exist. Exits 2 with the message and the command's usage line.
 */
export class UsageError extends CliError {
  /** The usage line of the command concerned; undefined for the top level. */
  readonly usage: string | undefined;

  constructor(message: string, usage?: string) {
    super(CliErrorCode.Usage, ExitCode.Usage, message);
    this.usage = usage;
  }

  static isUsage(value: unknown): value is UsageError {
    return CliError.is(value) && value.code === CliErrorCode.Usage;
  }
}

/** A request the CLI understood but that failed (no such instance, no such task): exits 1. */
export class FailedError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(CliErrorCode.Failed, ExitCode.Failed, message, options);
  }
}
