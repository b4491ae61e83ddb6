// Run one measurement in a fresh Node process (see child.mjs) and parse its result.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));
const MARKER = '@@bench-result ';

/** Run `tasks[task]` of bench/scenarios/`scenario`.mjs in a child process; resolves its result object. */
export function runChild(scenario, task, options = {}, { nodeArgs = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, CHILD, scenario, task, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.split('\n').find((l) => l.startsWith(MARKER));
      if (code === 0 && line) return resolve(JSON.parse(line.slice(MARKER.length)));
      reject(
        new Error(
          `${scenario}/${task} failed (${signal ?? `exit ${code}`}):\n${stderr.trim() || stdout.trim() || '(no output)'}`,
        ),
      );
    });
  });
}
