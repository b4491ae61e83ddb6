/**
 * The engine's layout shows its layers, and the imports keep to them: each folder of `src/` is a layer that
 * imports only from layers below it (or itself), and no file reaches itself through its imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Lowest first. A file at the root of `src/` other than these is the engine's public face. */
const LAYERS = ['common', 'timers', 'model', 'touchpoints', 'machines', 'core', 'runtime', '(root)'] as const;

/**
 * The floors inside a layer, lowest first: a file imports only from its own floor or a lower one of its layer.
 * A file at the layer's root (`(root)`) is its top floor: what routes to the floors below.
 */
const FLOORS: Record<string, readonly string[]> = {
  core: ['step', 'jobs', 'user-tasks', 'scoping', 'events', 'composites', '(root)'],
  runtime: ['base', 'document', 'leases', 'deployments', 'loop', 'parts', 'jobs', '(root)'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports of a file (static, re-exports and type-only alike), as absolute `.ts` paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return found
    .filter((spec) => spec.endsWith('.js'))
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

function layerOf(file: string): number {
  const path = relative(src, file);
  const top = path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)';
  const index = LAYERS.indexOf(top as (typeof LAYERS)[number]);
  if (index < 0) throw new Error(`${path} is in no layer: add its folder to LAYERS`);
  return index;
}

/** A file's floor in its layer, or -1 in a layer without floors. */
function floorOf(file: string): number {
  const [layer, ...rest] = relative(src, file).split('/');
  const floors = FLOORS[layer!];
  if (!floors) return -1;
  const floor = rest.length > 1 ? rest[0]! : '(root)';
  const index = floors.indexOf(floor);
  if (index < 0) throw new Error(`${relative(src, file)} is on no floor of ${layer}/: add its folder to FLOORS`);
  return index;
}

const files = sources(src);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const name = (file: string) => relative(src, file);

describe('engine layers', () => {
  it('should resolve every relative import to a source file', () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${name(file)} → ${name(target)}`),
    );
    expect(missing).toEqual([]);
  });

  it('should import only from its own layer or a lower one', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => graph.has(target) && layerOf(target) > layerOf(file))
        .map((target) => `${name(file)} → ${name(target)}`),
    );
    expect(upward).toEqual([]);
  });

  it.each(Object.keys(FLOORS))('should import within %s/ only from its own floor or a lower one', (layer) => {
    const inLayer = (file: string) => relative(src, file).startsWith(`${layer}/`);
    const upward = [...graph].flatMap(([file, imports]) =>
      inLayer(file)
        ? imports
            .filter((target) => graph.has(target) && inLayer(target) && floorOf(target) > floorOf(file))
            .map((target) => `${name(file)} → ${name(target)}`)
        : [],
    );
    expect(files.filter(inLayer).map(floorOf)).not.toContain(-1);
    expect(upward).toEqual([]);
  });

  it('should have no import cycle between files', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
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
    expect(cycles).toEqual([]);
  });

  it('should keep the model compiler free of the runtime', () => {
    const model = files.filter((file) => name(file).startsWith('model/'));
    const reaches = model.flatMap((file) =>
      (graph.get(file) ?? []).filter((target) => layerOf(target) > layerOf(file)).map(name),
    );
    expect(model.length).toBeGreaterThan(0);
    expect(reaches).toEqual([]);
  });
});
