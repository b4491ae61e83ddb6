import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Clock, systemClock } from '@thresher/engine';
import pg from 'pg';
import { runCli } from '../src/index.js';
import type { CliIo } from '../src/io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON document of `--json`. */
  json: <T = Record<string, unknown>>() => T;
}

export interface RunOptions {
  /** What stdin holds; it ends right after (undefined: empty stdin, ended at once). */
  stdin?: string;
  isTTY?: boolean;
  env?: Record<string, string | undefined>;
  /** The CLI's clock (and its engine's); default the system clock. */
  clock?: Clock;
}

/** A `thresher` command line still running in-process: what it wrote so far, and its end. */
export interface RunningCli {
  /** Resolves when `runCli` returns. */
  readonly done: Promise<CliRun>;
  /** stderr so far. */
  stderr(): string;
  /** Resolves once stderr matches `pattern`; rejects if the command ends before it does. */
  stderrMatches(pattern: RegExp): Promise<void>;
}

/**
 * A clock a test moves by hand. `now()` stands still until `advance()`; timers fire when time reaches
 * their due time, in due order (ties in the order they were set), with `now()` reading that due time.
 * A timer set with no delay (or one already due) fires on the next turn of the event loop, as on the
 * system clock: time need not pass for what is already due.
 */
export class TestClock implements Clock {
  private time: number;
  private readonly timers = new Map<number, { due: number; callback: () => void }>();
  private nextId = 1;

  constructor(start = Date.UTC(2026, 0, 1, 9)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.set(id, { due: this.time + Math.max(0, ms), callback });
    if (ms <= 0) setImmediate(() => this.advance(0));
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Moves time forward by `ms`, firing every timer due by then. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      let next: [number, { due: number; callback: () => void }] | undefined;
      for (const entry of this.timers)
        if (entry[1].due <= target && (!next || entry[1].due < next[1].due)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = Math.max(this.time, next[1].due);
      next[1].callback();
    }
    this.time = target;
  }
}

/** A scratch directory with files, and `thresher` run in-process against it. */
export class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'thresher-cli-'));

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, text: string): string {
    writeFileSync(this.path(name), text);
    return this.path(name);
  }

  /** Runs `thresher` in-process to its end. */
  thresher(argv: string[], options: RunOptions = {}): Promise<CliRun> {
    return this.start(argv, options).done;
  }

  /** Starts `thresher` in-process, to watch what it writes while it runs (and move its clock). */
  start(argv: string[], options: RunOptions = {}): RunningCli {
    let stdout = '';
    let stderr = '';
    let ended = false;
    const watchers = new Set<() => void>();
    const io: CliIo = {
      stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: {
        write: (chunk: string) => {
          stderr += chunk;
          for (const watcher of watchers) watcher();
        },
      },
      env: options.env ?? {},
      cwd: this.dir,
      isTTY: options.isTTY ?? false,
      clock: options.clock ?? systemClock,
    };
    const done = runCli(argv, io).then(
      (code): CliRun => ({ code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }),
    );
    const finished = done.finally(() => {
      ended = true;
      for (const watcher of watchers) watcher();
    });
    finished.catch(() => {});
    return {
      done,
      stderr: () => stderr,
      stderrMatches: (pattern) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (pattern.test(stderr)) resolve();
            else if (ended) reject(new Error(`thresher ended before stderr matched ${pattern}:\n${stderr}`));
            else return;
            watchers.delete(check);
          };
          watchers.add(check);
          check();
        }),
    };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const HEADER = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="DEFS" targetNamespace="http://bpmn.io/schema/bpmn">`;

/** A definitions document holding the given processes. */
export function definitions(id: string, ...processes: string[]): string {
  return `${HEADER.replace('DEFS', id)}\n${processes.join('\n')}\n</bpmn:definitions>\n`;
}

/** start → scriptTask `doubled = a * 2` → end; element ids are prefixed with the process id. */
export const scriptProcess = (id = 'doubler') => `  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="${id}-start"><bpmn:outgoing>${id}-f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:scriptTask id="${id}-double" name="Double">
      <bpmn:extensionElements><zeebe:script expression="= a * 2" resultVariable="doubled" /></bpmn:extensionElements>
      <bpmn:incoming>${id}-f1</bpmn:incoming><bpmn:outgoing>${id}-f2</bpmn:outgoing>
    </bpmn:scriptTask>
    <bpmn:endEvent id="${id}-end"><bpmn:incoming>${id}-f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="${id}-f1" sourceRef="${id}-start" targetRef="${id}-double" />
    <bpmn:sequenceFlow id="${id}-f2" sourceRef="${id}-double" targetRef="${id}-end" />
  </bpmn:process>`;

/** start → userTask approve → approved? → done, else a terminate end event `rejected`. */
/** Process `id`: start → call activity `callId` calling `calledId` → end (element ids prefixed with `id`). */
export function callerProcess(id: string, callId: string, calledId: string): string {
  return `  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="${id}-start" />
    <bpmn:callActivity id="${callId}"><bpmn:extensionElements><zeebe:calledElement processId="${calledId}" /></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:endEvent id="${id}-end" />
    <bpmn:sequenceFlow id="${id}-f1" sourceRef="${id}-start" targetRef="${callId}" />
    <bpmn:sequenceFlow id="${id}-f2" sourceRef="${callId}" targetRef="${id}-end" />
  </bpmn:process>`;
}

export const approvalProcess = `  <bpmn:process id="approval" name="Approval" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:userTask id="approve" name="Approve order">
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:userTask>
    <bpmn:exclusiveGateway id="is-approved" default="f-no">
      <bpmn:incoming>f2</bpmn:incoming><bpmn:outgoing>f-yes</bpmn:outgoing><bpmn:outgoing>f-no</bpmn:outgoing>
    </bpmn:exclusiveGateway>
    <bpmn:endEvent id="done"><bpmn:incoming>f-yes</bpmn:incoming></bpmn:endEvent>
    <bpmn:endEvent id="rejected"><bpmn:incoming>f-no</bpmn:incoming><bpmn:terminateEventDefinition /></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="approve" />
    <bpmn:sequenceFlow id="f2" sourceRef="approve" targetRef="is-approved" />
    <bpmn:sequenceFlow id="f-yes" sourceRef="is-approved" targetRef="done">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">= approved = true</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f-no" sourceRef="is-approved" targetRef="rejected" />
  </bpmn:process>`;

/** start → serviceTask `greet` (type greet, one attempt) → end. */
export const serviceProcess = `  <bpmn:process id="greeting" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:serviceTask id="greet" name="Greet">
      <bpmn:extensionElements><zeebe:taskDefinition type="greet" retries="1" /></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="greet" />
    <bpmn:sequenceFlow id="f2" sourceRef="greet" targetRef="end" />
  </bpmn:process>`;

/** The test PostgreSQL server (`.ci/run` sets THRESHER_PG_URL); undefined where none runs. */
export const PG_URL = process.env.THRESHER_PG_URL?.trim() || undefined;

/** Schemas on the test server, one per store a test asks for; `drop()` them after each test. */
export class TestSchemas {
  private readonly made: string[] = [];

  constructor(private readonly prefix: string) {}

  /** A fresh schema name, dropped by `drop()`. */
  name(): string {
    const schema = `${this.prefix}_${randomBytes(6).toString('hex')}`;
    this.made.push(schema);
    return schema;
  }

  /** A `postgres://` store URL on the test server, in a fresh schema. */
  store(schema = this.name()): string {
    const url = new URL(PG_URL!);
    url.searchParams.set('schema', schema);
    return url.toString();
  }

  async drop(): Promise<void> {
    if (PG_URL === undefined || this.made.length === 0) return;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      for (const schema of this.made.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  }
}

/** How a `thresher` child process ended, with everything it wrote. */
export interface ChildExit {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The built binary the child-process tests run (`pnpm test` builds first). */
export const CLI_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Runs the built `thresher` as a child process in `cwd`; `stderr()` reads what it wrote so far. */
export function spawnThresher(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): { child: ChildProcess; exit: Promise<ChildExit>; stderr: () => string } {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise<ChildExit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ pid: child.pid!, code, signal, stdout, stderr })),
  );
  return { child, exit, stderr: () => stderr };
}

/** `thresher serve` on `store` (instances and batch claims leased for 2 s), kept in `servers`; once it printed its address. */
export async function serveOn(
  workspace: Workspace,
  store: string,
  servers: Array<ReturnType<typeof spawnThresher>>,
): Promise<ReturnType<typeof spawnThresher> & { url: string }> {
  const server = spawnThresher(['serve', '--store', store, '--port', '0', '--lease-ttl', 'PT2S'], {
    cwd: workspace.dir,
  });
  servers.push(server);
  let stdout = '';
  server.child.stdout?.on('data', (chunk) => (stdout += chunk));
  for (;;) {
    const url = /thresher serve: (http:\/\/\S+)/.exec(stdout)?.[1];
    if (url) return { ...server, url };
    if (server.child.exitCode !== null) throw new Error(`thresher serve ended: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A JSON POST. */
export function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/**
 * Deploy `bpmn` through the API of `urls[0]`, then create `count` instances of `processId` through 8 clients spread
 * over `urls` in turn: their keys.
 */
export async function deployAndCreate(
  urls: string[],
  bpmn: string,
  processId: string,
  count: number,
): Promise<string[]> {
  const form = new FormData();
  form.append('resources', new Blob([bpmn]), `${processId}.bpmn`);
  const deployed = await fetch(`${urls[0]}/deployments`, { method: 'POST', body: form });
  if (deployed.status !== 200) throw new Error(`deploying ${processId}: ${deployed.status} ${await deployed.text()}`);
  const keys: string[] = [];
  let asked = 0;
  const create = async (url: string) => {
    while (asked < count) {
      asked += 1;
      const response = await postJson(`${url}/process-instances`, { processDefinitionId: processId });
      keys.push(((await response.json()) as { processInstanceKey: string }).processInstanceKey);
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, index) => create(urls[index % urls.length]!)));
  return keys;
}
