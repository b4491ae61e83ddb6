/**
 * No package's source reaches itself through its imports, `import type` included: a type two files share lives
 * below both. The engine's own layers are checked by its `layers.test.ts`; this holds every package to the rule.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packages = fileURLToPath(new URL('../packages/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports of a file (static, dynamic, re-exports and type-only alike), as `.ts` paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)].map((match) =>
    resolve(dirname(file), `${match[1]!}.ts`),
  );
}

/** Every cycle of imports among `files`, each as the path round it. */
function cyclesOf(files: string[], name: (file: string) => string): string[] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map(name).join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of files) visit(file, []);
  return cycles;
}

const withSources = readdirSync(packages).filter((name) => existsSync(join(packages, name, 'src')));

describe('imports within a package', () => {
  it('should find the packages it checks', () => {
    expect(withSources).toEqual(expect.arrayContaining(['checkpoint', 'engine', 'store-sqlite', 'store-postgres']));
  });

  it.each(withSources)('should form no cycle in @thresher/%s', (name) => {
    const src = join(packages, name, 'src');
    expect(cyclesOf(sources(src), (file) => relative(src, file))).toEqual([]);
  });
});
