/**
 * The files the view's pages load, from a fixed table: a name maps to one file inside an installed package
 * (or the view's own `client/` folder), never to a path taken from a request, so nothing outside those files
 * can be served. Each is read once, and served under its digest with a year's immutable caching.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

interface AssetSource {
  /** The package it comes from; absent for the view's own files in `client/`. */
  readonly from?: string;
  readonly path: string;
  readonly type: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Every asset by the name pages use. */
const SOURCES = {
  'bpmn-viewer.js': { from: 'bpmn-js', path: 'dist/bpmn-viewer.production.min.js', type: JS },
  'diagram-js.css': { from: 'bpmn-js', path: 'dist/assets/diagram-js.css', type: CSS },
  'bpmn-js.css': { from: 'bpmn-js', path: 'dist/assets/bpmn-js.css', type: CSS },
  // @bpmn-io/form-js ships @bpmn-io/form-js-viewer bundled for a browser (the viewer's own dist imports modules).
  'form-viewer.js': { from: '@bpmn-io/form-js', path: 'dist/form-viewer.umd.js', type: JS },
  'form-js.css': { from: '@bpmn-io/form-js', path: 'dist/assets/form-js.css', type: CSS },
  'dmn-viewer.js': { from: 'dmn-js', path: 'dist/dmn-viewer.production.min.js', type: JS },
  'dmn-js-shared.css': { from: 'dmn-js', path: 'dist/assets/dmn-js-shared.css', type: CSS },
  'dmn-js-drd.css': { from: 'dmn-js', path: 'dist/assets/dmn-js-drd.css', type: CSS },
  'dmn-js-decision-table.css': { from: 'dmn-js', path: 'dist/assets/dmn-js-decision-table.css', type: CSS },
  'dmn-js-literal-expression.css': { from: 'dmn-js', path: 'dist/assets/dmn-js-literal-expression.css', type: CSS },
  'dmn-font.css': { from: 'dmn-js', path: 'dist/assets/dmn-font/css/dmn-embedded.css', type: CSS },
  'ui.js': { path: 'ui.js', type: JS },
  'ui.css': { path: 'ui.css', type: CSS },
} as const satisfies Record<string, AssetSource>;

export type AssetName = keyof typeof SOURCES;

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** The first 16 hex digits of its sha256: part of its address, so a changed file is a new address. */
  readonly digest: string;
}

/** The folder of an installed package: where its package.json is, above the file its name resolves to. */
function packageRoot(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === name) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`the package ${name} is not installed beside @thresher/ui`);
    dir = parent;
  }
}

const CLIENT = fileURLToPath(new URL('../client/', import.meta.url));
const loaded = new Map<AssetName, Asset>();

/** The asset called `name`, read on first use. */
export function asset(name: AssetName): Asset {
  let found = loaded.get(name);
  if (!found) {
    const source: AssetSource = SOURCES[name];
    const body = readFileSync(source.from ? join(packageRoot(source.from), source.path) : join(CLIENT, source.path));
    found = { body, type: source.type, digest: createHash('sha256').update(body).digest('hex').slice(0, 16) };
    loaded.set(name, found);
  }
  return found;
}

/** Whether `name` is one of the table's. */
export function isAssetName(name: string): name is AssetName {
  return Object.hasOwn(SOURCES, name);
}

/** The address of an asset under the view's base path. */
export function assetPath(base: string, name: AssetName): string {
  return `${base}/assets/${asset(name).digest}/${name}`;
}
