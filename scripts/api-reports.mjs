#!/usr/bin/env node
// The public API of every package, as API Extractor reads it from the built declarations: one report per
// entry point (packages/NAME/api/), checked in so a change to the surface shows as a diff in review.
//
//   node scripts/api-reports.mjs           check: exit 1 when a report differs from the build, saying which
//   node scripts/api-reports.mjs --update  write the reports as the build has them
//   node scripts/api-reports.mjs --json    check, and print each entry's findings as JSON
//
// Besides the report, an entry fails when a signature it exposes uses a @thresher type it does not export
// itself (a caller would have to depend on a second package to name it) or a type of its own it forgot.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every entry point with declarations of every public package: `{ dir, name, subpath, types, report }`. */
export function entries() {
  const list = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (typeof target !== 'object' || !target.types) continue;
      const suffix = subpath === '.' ? '' : `-${subpath.slice(2).replaceAll('/', '-')}`;
      list.push({ dir, name: manifest.name, subpath, types: target.types, report: `${dir}${suffix}.api.md` });
    }
  }
  return list;
}

/** Names a report imports from other @thresher packages and names it exports. */
function foreignUnexported(report) {
  const imported = new Set();
  for (const [, names] of report.matchAll(/^import \{([^}]*)\} from '@thresher\/[^']+';$/gm)) {
    for (const name of names.split(',')) imported.add(name.trim().split(' as ').pop());
  }
  const exported = new Set();
  for (const [, names] of report.matchAll(/^export \{([^}]*)\}/gm)) {
    for (const name of names.split(',')) exported.add(name.trim().split(' as ').pop());
  }
  return [...imported].filter((name) => name && !exported.has(name)).sort();
}

function run(entry, update) {
  const project = join(root, 'packages', entry.dir);
  const temp = join(root, 'node_modules', '.api-reports', entry.dir);
  mkdirSync(temp, { recursive: true });
  mkdirSync(join(project, 'api'), { recursive: true });
  const config = ExtractorConfig.prepare({
    configObjectFullPath: join(project, 'api-extractor.json'),
    packageJsonFullPath: join(project, 'package.json'),
    configObject: {
      projectFolder: project,
      mainEntryPointFilePath: join(project, entry.types),
      compiler: { tsconfigFilePath: join(project, 'tsconfig.json') },
      apiReport: {
        enabled: true,
        reportFolder: join(project, 'api'),
        reportTempFolder: temp,
        reportFileName: entry.report.replace(/\.api\.md$/, ''),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // Named with the source line it is on: a report would change with every edit above it.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
          'ae-forgotten-export': { logLevel: 'error', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
  const forgotten = [];
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (message) => {
      if (message.messageId === 'ae-forgotten-export') {
        forgotten.push({ symbol: /"([^"]+)"/.exec(message.text)?.[1], text: message.text });
      }
      message.handled = true;
    },
  });
  const built = readFileSync(join(temp, entry.report), 'utf8');
  rmSync(join(temp, entry.report), { force: true });
  return {
    name: entry.name,
    built,
    entry: entry.subpath === '.' ? entry.name : `${entry.name}/${entry.subpath.slice(2)}`,
    report: `packages/${entry.dir}/api/${entry.report}`,
    changed: result.apiReportChanged && !update,
    forgotten,
    unexported: foreignUnexported(built),
  };
}

/** Names each package exports at any of its entry points, from the reports as built. */
function exportedByPackage(findings) {
  const names = new Map();
  for (const { name, built } of findings) {
    const own = names.get(name) ?? new Set();
    for (const [, list] of built.matchAll(
      /^export (?:\{([^}]*)\}|(?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|namespace) (\w+))/gm,
    )) {
      for (const item of (list ?? '').split(',')) own.add(item.trim().split(' as ').pop());
    }
    for (const [, one] of built.matchAll(
      /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|namespace) (\w+)/gm,
    )) {
      own.add(one);
    }
    names.set(name, own);
  }
  return names;
}

/** Every entry's findings: a symbol another entry of the same package exports is not forgotten. */
export function checkReports(update) {
  const findings = entries().map((entry) => run(entry, update));
  const exported = exportedByPackage(findings);
  return findings.map(({ name, built, forgotten, ...rest }) => ({
    ...rest,
    forgotten: forgotten.filter(({ symbol }) => !exported.get(name).has(symbol)).map(({ text }) => text),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  const findings = checkReports(update);
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(findings, null, 2)}\n`);
  let failed = false;
  for (const { entry, report, changed, forgotten, unexported } of findings) {
    if (changed) process.stderr.write(`${entry}: the public API differs from ${report} (pnpm api:update writes it)\n`);
    for (const text of forgotten) process.stderr.write(`${entry}: ${text}\n`);
    if (unexported.length > 0) {
      process.stderr.write(
        `${entry}: its signatures use @thresher types it does not export: ${unexported.join(', ')}\n`,
      );
    }
    failed ||= changed || forgotten.length > 0 || unexported.length > 0;
  }
  process.exitCode = failed ? 1 : 0;
}
