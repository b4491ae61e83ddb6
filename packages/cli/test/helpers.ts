import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
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

  async thresher(argv: string[], options: RunOptions = {}): Promise<CliRun> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: options.env ?? {},
      cwd: this.dir,
      isTTY: options.isTTY ?? false,
    };
    const code = await runCli(argv, io);
    return {
      code,
      stdout,
      stderr,
      json: <T>() => JSON.parse(stdout) as T,
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
