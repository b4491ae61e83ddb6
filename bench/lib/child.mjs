// One measurement in a fresh process: `node bench/lib/child.mjs SCENARIO TASK OPTIONS_JSON`.
// Runs `tasks[TASK](options, context)` of bench/scenarios/SCENARIO.mjs and prints its result as one line
// `@@bench-result {json}` on stdout, with the process's peak RSS (getrusage ru_maxrss) added. A fresh process
// per measurement makes the peak RSS that of this measurement alone (plus Node and the modules it loaded).
import { writeFileSync } from 'node:fs';
import { startProfile } from './profile.mjs';

export const RESULT_MARKER = '@@bench-result ';

async function main() {
  const [scenario, task, json] = process.argv.slice(2);
  const options = JSON.parse(json ?? '{}');
  const module = await import(new URL(`../scenarios/${scenario}.mjs`, import.meta.url).href);
  const run = module.tasks?.[task];
  if (typeof run !== 'function') throw new Error(`scenario ${scenario} has no task ${task}`);
  let profiled = false;
  const context = {
    /** Runs `fn` as the measured section: under the CPU profiler when this child was asked for a profile. */
    async section(fn) {
      if (!options.profile || profiled) return fn();
      profiled = true;
      const profile = await startProfile();
      try {
        return await fn();
      } finally {
        writeFileSync(options.profile, JSON.stringify(await profile.stop()));
      }
    },
  };
  const result = await run(options, context);
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify({ ...result, peakRssBytes })}\n`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error?.stack ?? String(error));
    process.exit(1);
  },
);
