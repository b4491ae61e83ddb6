/**
 * The `thresher serve` of a `via: api` fixture run, on the run's SQLite file, and the client its workers and moves
 * call it through. A kill leaves the client waiting: each call made while no server answers is made again once
 * the next one is up, and says so (`repeated`), since a call the kill cut off may have landed before it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// From the sources (under vitest) the server still runs built: Node 20 cannot run TypeScript.
const THRESHER = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../dist/main.js' : '../main.js', import.meta.url),
);

/** How long a call waits for a server to answer again before the run gives up on it. */
const DOWN_LIMIT_MS = 60_000;

export class ServedStore {
  readonly #storePath: string;
  #child: ChildProcess | undefined;
  #url: Promise<string>;
  #up!: (url: string) => void;
  /** Servers started so far, the first included. */
  starts = 0;

  constructor(storePath: string) {
    this.#storePath = storePath;
    this.#url = this.#pending();
  }

  #pending(): Promise<string> {
    return new Promise((resolve) => {
      this.#up = resolve;
    });
  }

  /** The address of the server up now, once there is one. */
  url(): Promise<string> {
    return this.#url;
  }

  /** Start a server on the file and wait until it answers `/v2/topology`. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [THRESHER, 'serve', '--store', `sqlite:${this.#storePath}`, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.starts++;
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const look = setInterval(() => {
        const found = /thresher serve: (http:\/\/\S+)/.exec(stdout)?.[1];
        if (found !== undefined) {
          clearInterval(look);
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearInterval(look);
          reject(new Error(`thresher serve ended before it served: ${stderr.trim() || `exit ${child.exitCode}`}`));
        }
      }, 10);
    });
    for (;;) {
      const answered = await fetch(`${url}/topology`).then(
        (response) => response.ok,
        () => false,
      );
      if (answered) break;
      await sleep(10);
    }
    this.#up(url);
  }

  /** SIGKILL the server: calls wait for the next one. */
  kill(): Promise<void> {
    const child = this.#child;
    this.#url = this.#pending();
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    return gone;
  }

  /** SIGTERM the server and wait until it has stopped (after its current writes). */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#url = this.#pending();
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await gone;
  }
}

/** An answer of the API: its status and JSON body, and whether the call was made again after a server went. */
export interface Answer {
  status: number;
  body: unknown;
  repeated: boolean;
}

/** Calls the API of whichever server is up, making a call again on the next server when one goes mid-call. */
export class ApiClient {
  constructor(private readonly served: ServedStore) {}

  async call(method: string, path: string, body?: unknown | FormData): Promise<Answer> {
    let repeated = false;
    const since = Date.now();
    for (;;) {
      const url = await within(this.served.url(), DOWN_LIMIT_MS - (Date.now() - since), `${method} ${path}`);
      try {
        const response = await fetch(`${url}${path}`, {
          method,
          ...(body === undefined
            ? {}
            : body instanceof FormData
              ? { body }
              : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        });
        const text = await response.text();
        return { status: response.status, body: text === '' ? null : JSON.parse(text), repeated };
      } catch (error) {
        // The server went (connection refused or cut): made again on the next one.
        if (!(error instanceof TypeError)) throw error;
        repeated = true;
        await sleep(20);
      }
    }
  }

  /** A call that must answer `ok` (or, made again after a server went, `orDone`: the first landed). */
  async expect(method: string, path: string, body: unknown, ok: number[], orDone: number[] = []): Promise<Answer> {
    const answer = await this.call(method, path, body);
    if (ok.includes(answer.status) || (answer.repeated && orDone.includes(answer.status))) return answer;
    throw new Error(`${method} /v2${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: no thresher serve answered for ${DOWN_LIMIT_MS} ms`)),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
