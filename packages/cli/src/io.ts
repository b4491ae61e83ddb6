import { createInterface } from 'node:readline/promises';
import type { Clock } from '@thresher/engine';

/** Where output goes: `process.stdout` or, in tests, a string buffer. */
export interface CliWritable {
  write(chunk: string): unknown;
  /** The terminal's width when the stream is one (`process.stdout` has it): windows are drawn to it. */
  readonly columns?: number;
}

/**
 * Everything the CLI takes from its process, passed in so every command runs in-process in tests.
 * Only `main.ts` reads `process`.
 */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: CliWritable;
  stderr: CliWritable;
  env: Record<string, string | undefined>;
  /** Relative paths (BPMN files, handler modules, the default store) resolve against it. */
  cwd: string;
  /** Both stdin and stdout are terminals: user tasks are asked interactively. */
  isTTY: boolean;
  /**
   * The time the CLI reads and waits by, and the engines it starts run on: BPMN timers, `--wait-timers`,
   * `--ttl`, the due times and durations it prints. `systemClock` (from `@thresher/engine`) in the binary;
   * tests pass one they move by hand.
   */
  clock: Clock;
  /**
   * Calls `listener` once when the process is asked to stop (SIGTERM or SIGINT, with its name): commands that
   * run until stopped (`worker`) listen; others leave the signals their default meaning.
   */
  onStop?: (listener: (signal: string) => void) => void;
}

/**
 * Reads stdin a line at a time, on demand. Lines that arrive before they are asked for are kept, so
 * scripted answers (`printf '…\n…\n' | thresher run …`) can be piped in all at once.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private readonly waiters: Array<(line: string | undefined) => void> = [];
  private ended = false;
  private readonly rl;

  constructor(input: NodeJS.ReadableStream) {
    // terminal: false — on a TTY the kernel's line discipline already echoes and edits the line.
    this.rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    this.rl.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
  }

  /**
   * The next line without its newline, or undefined once the input has ended. An abort of `signal` rejects
   * with its reason and gives up the wait, so the line goes to the next reader rather than being lost.
   */
  next(signal?: AbortSignal): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal?.reason);
      };
      const waiter = (next: string | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(next);
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stop reading so the process can exit; pending reads see the end of input. */
  close(): void {
    this.rl.close();
  }
}
