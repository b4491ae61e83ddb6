/**
 * `thresher inspect` over every model the project holds (its fixtures) and, where it sits beside the
 * clone, the shared corpus of public models no one here wrote: no crash, and every refusal names an
 * element or a line, so a user can find what to change.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { Workspace } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const corpus = join(root, '..', 'shared', 'corpus');

function bpmnFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name !== 'node_modules')
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return bpmnFiles(path);
      return name.endsWith('.bpmn') ? [path] : [];
    })
    .sort();
}

const own = [...bpmnFiles(join(root, 'fixtures')), ...bpmnFiles(join(root, 'packages', 'engine', 'test', 'fixtures'))];
const shared = bpmnFiles(corpus);

interface Issue {
  elementId: string | null;
  line?: number;
  message: string;
}

const ws = new Workspace();
afterAll(() => ws.remove());

async function inspect(file: string): Promise<{ code: number; issues: Issue[]; warnings: { message: string }[] }> {
  const run = await ws.thresher(['inspect', file, '--json']);
  expect(run.stderr).toBe('');
  const document = run.json<{ issues?: Issue[]; warnings?: { message: string }[] }>();
  return { code: run.code, issues: document.issues ?? [], warnings: document.warnings ?? [] };
}

describe('thresher inspect over the project fixtures', () => {
  it('finds fixtures to inspect', () => {
    expect(own.length).toBeGreaterThan(10);
  });

  it.each(own.map((path) => [path.slice(root.length), path]))(
    '%s: compiles, or names what it refuses',
    async (_, path) => {
      const { code, issues } = await inspect(path);
      expect([ExitCode.Ok, ExitCode.Failed]).toContain(code);
      for (const issue of issues)
        expect(issue.elementId !== null || issue.line !== undefined, issue.message).toBe(true);
    },
  );

  it('the runnable fixtures compile without a refusal', async () => {
    const runnable = own.filter((path) => !path.includes(`${join('fixtures', 'bpmn', 'error')}`));
    const refused: string[] = [];
    for (const path of runnable) {
      const { code, issues } = await inspect(path);
      if (code !== ExitCode.Ok) refused.push(`${path}: ${issues.map((issue) => issue.message).join('; ')}`);
    }
    expect(refused).toEqual([]);
  });
});

describe.skipIf(shared.length === 0)(`thresher inspect over the shared corpus (${corpus})`, () => {
  it.each(shared.map((path) => [path.slice(corpus.length + 1), path]))(
    '%s: no crash; every refusal names an element or a line',
    async (_, path) => {
      const { code, issues } = await inspect(path);
      expect([ExitCode.Ok, ExitCode.Failed]).toContain(code);
      for (const issue of issues)
        expect(issue.elementId !== null || issue.line !== undefined, issue.message).toBe(true);
    },
  );
});
