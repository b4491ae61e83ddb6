#!/usr/bin/env node
// Camunda's own REST client tests (README.md) against a fresh `thresher serve` on a memory store, as the SDK's
// `test:c8run` script runs them against C8Run: prints passed / failed / skipped per file and in all.
//
//   pnpm camunda-suite                    build, then run every file
//   node camunda-suite/run.mjs [FILTER]...  run the files whose path contains a FILTER (the build as it is)
//   node camunda-suite/run.mjs --json     the counts as one JSON document on stdout
//
// Exits 0 whatever the counts: `test/camunda-suite.test.ts` holds the floor.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

/** Serve the API on a free port; resolves with the server's origin and a stop function. */
export async function startServer() {
  const child = spawn(
    process.execPath,
    [join(root, 'packages/cli/dist/main.js'), 'serve', '--store', 'memory:', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const look = setInterval(() => {
      const printed = /thresher serve: (http:\/\/\S+)\/v2/.exec(stdout)?.[1];
      if (printed) {
        clearInterval(look);
        resolve(printed);
      }
    }, 20);
    exited.then(() => {
      clearInterval(look);
      reject(new Error(`thresher serve ended before printing its address:\n${stdout}${stderr}`));
    });
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Run the suite (the files whose path contains one of `filters`; all without) against `url`: counts per file. */
export async function runSuite(url, filters = []) {
  const out = mkdtempSync(join(tmpdir(), 'thresher-camunda-suite-'));
  const report = join(out, 'report.json');
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(CAMUNDA_|ZEEBE_)/.test(name)) delete env[name];
  Object.assign(env, {
    TEST_VERSION: '8.8',
    TEST_DEPLOYMENT: 'self-managed',
    TEST_TENANCY: 'single-tenant',
    TEST_SECURITY: 'unsecured',
    ZEEBE_REST_ADDRESS: url,
    CAMUNDA_AUTH_STRATEGY: 'NONE',
    // The SDK's support log and token cache stay out of the repository.
    CAMUNDA_SUPPORT_LOG_ENABLED: 'false',
    CAMUNDA_TOKEN_CACHE_DIR: out,
  });
  const args = [
    join(here, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    join(here, 'vitest.config.mts'),
    '--reporter=json',
    `--outputFile=${report}`,
    ...filters,
  ];
  const child = spawn(process.execPath, args, { cwd: here, env, stdio: ['ignore', 'ignore', 'inherit'] });
  await new Promise((resolve) => child.on('exit', resolve));
  try {
    const results = JSON.parse(readFileSync(report, 'utf8'));
    return results.testResults.map((file) => {
      const counts = { file: relative(here, file.name), passed: 0, failed: 0, skipped: 0, failures: [] };
      for (const test of file.assertionResults) {
        if (test.status === 'passed') counts.passed++;
        else if (test.status === 'failed') {
          counts.failed++;
          counts.failures.push({ test: test.fullName, message: (test.failureMessages[0] ?? '').split('\n')[0] });
        } else counts.skipped++;
      }
      // A file that failed to load, or whose hook failed (its tests then count as skipped), fails as a file.
      if (file.status === 'failed' && counts.failed === 0) {
        counts.failed++;
        counts.failures.push({ test: '(the file)', message: (file.message ?? '').split('\n')[0] });
      }
      return counts;
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function main() {
  const json = process.argv.includes('--json');
  const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const server = await startServer();
  let files;
  try {
    files = await runSuite(server.url, filters);
  } finally {
    await server.stop();
  }
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const file of files) for (const key of Object.keys(total)) total[key] += file[key];
  if (json) {
    process.stdout.write(`${JSON.stringify({ total, files }, null, 2)}\n`);
    return;
  }
  const width = Math.max(...files.map((file) => file.file.length));
  for (const file of files.sort((a, b) => a.file.localeCompare(b.file))) {
    console.log(`${file.file.padEnd(width)}  passed ${file.passed}  failed ${file.failed}  skipped ${file.skipped}`);
  }
  console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
