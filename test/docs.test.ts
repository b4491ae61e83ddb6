/**
 * The architecture doc says what the code is: the checkpoint schema it states is the one this build writes, the
 * seams it counts are the loop host's, and it names every module of the engine's core and runtime.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CURRENT_SCHEMA, createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { createEngineParts } from '../packages/engine/src/runtime/parts/engine-parts.js';

const root = new URL('../', import.meta.url);
const architecture = readFileSync(new URL('docs/architecture.md', root), 'utf8');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('docs/architecture.md', () => {
  it('should state the checkpoint schema this build writes', () => {
    expect(architecture.match(/The current schema is \*\*(\d+)\*\*/)?.[1]).toBe(String(CURRENT_SCHEMA));
  });

  it("should count the loop host's seams", () => {
    const parts = createEngineParts({ repository: createMemoryRepository() });
    clearInterval(parts.renewing);
    parts.sweep.stop();
    const stated = architecture.match(/A loop reaches the engine through (\w+) narrow seams/)?.[1];
    expect(stated).toBe(WORDS[Object.keys(parts.loopHost).length]);
    for (const seam of Object.keys(parts.loopHost)) expect(architecture).toContain(`\`${seam}\``);
  });

  it.each(['core', 'runtime'])('should name every module of the engine’s %s/ and every floor of it', (layer) => {
    const folder = fileURLToPath(new URL(`packages/engine/src/${layer}/`, root));
    const entries = readdirSync(folder, { recursive: true, encoding: 'utf8' });
    const modules = entries.filter((path) => path.endsWith('.ts')).map((path) => path.split('/').pop()!);
    const floors = entries.filter((path) => !path.includes('.') && !path.includes('/'));
    expect(
      modules.filter((file) => !architecture.includes(`\`${file}\``) && !architecture.includes(`/${file}`)),
    ).toEqual([]);
    expect(floors.filter((floor) => !architecture.includes(`\`${layer}/${floor}/\``))).toEqual([]);
  });
});

/** Lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function prose(text: string): [number, string][] {
  let fenced = false;
  const lines: [number, string][] = [];
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) lines.push([i + 1, line]);
  });
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

const readme = readFileSync(new URL('README.md', root), 'utf8');

describe('the README', () => {
  it('should be read in a terminal: at most 200 lines, none past 160 characters outside code', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    expect(prose(readme).filter(([, line]) => line.length > 160 && !/https?:\/\//.test(line))).toEqual([]);
  });

  it('should give the test command .ci/run runs', () => {
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    const command = 'npx -y pnpm@12.4.2 install --frozen-lockfile && npx -y pnpm@12.4.2 test';
    expect(readme).toContain(`\n${command}\n`);
    expect(ci).toContain(`\n${command}\n`);
  });
});

describe('links between the docs', () => {
  const docs = readdirSync(fileURLToPath(new URL('docs/', root)))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`);
  const packages = readdirSync(fileURLToPath(new URL('packages/', root))).map((name) => `packages/${name}/README.md`);

  it.each(['README.md', 'bench/README.md', ...docs, ...packages])(
    'should resolve every relative link in %s',
    (file) => {
      const here = new URL(file, root);
      const broken: string[] = [];
      for (const [number, line] of prose(readFileSync(here, 'utf8'))) {
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(target!)) continue;
          const [path, fragment] = target!.split('#');
          const linked = path ? new URL(path, here) : here;
          let text: string;
          try {
            text = readFileSync(linked, 'utf8');
          } catch {
            if (path && !fragment && existsSync(linked)) continue; // a folder or an image
            broken.push(`${number}: ${target}`);
            continue;
          }
          if (fragment && !prose(text).some(([, l]) => /^#+ /.test(l) && anchor(l.replace(/^#+ /, '')) === fragment)) {
            broken.push(`${number}: ${target}`);
          }
        }
      }
      expect(broken).toEqual([]);
    },
  );
});
