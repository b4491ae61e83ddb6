// Scenario 13 — the Camunda API served by `thresher serve` (issue 57), on a fresh SQLite file (FULL). Row a: cold
// start, from spawning `thresher serve` to the first 200 from `GET /v2/topology` (Camunda's own start in 10–60 s).
// Row b: a one-service-task process created with `awaitCompletion` while an external worker in this process
// long-polls `POST /v2/jobs/activation` and completes each job: p95 of the create call, instances one after another.
// Row c: jobs activated and completed per second through the API (instances created first, then a worker taking 32
// at a time) ÷ the same process run by an engine with an in-process handler on the same kind of store.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { oneJobModel } from '../lib/models.mjs';
import { percentile } from '../lib/stats.mjs';

export const id = '13';
export const title = 'The Camunda API (thresher serve)';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `thresher serve` on a fresh SQLite file: its URL once printed, and how to stop it. */
async function serve(dir) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'packages/cli/dist/main.js'), 'serve', '--store', `sqlite:${join(dir, 'thresher.db')}`, '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const look = setInterval(() => {
      const printed = /thresher serve: (http:\/\/\S+\/v2)/.exec(out)?.[1];
      if (printed) {
        clearInterval(look);
        resolve(printed);
      }
    }, 2);
    exited.then(() => {
      clearInterval(look);
      reject(new Error(`thresher serve ended: ${out}`));
    });
  });
  return {
    url,
    started,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function call(url, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

async function deploy(url) {
  const form = new FormData();
  form.append('resources', new Blob([oneJobModel]), 'bench.bpmn');
  const response = await fetch(`${url}/deployments`, { method: 'POST', body: form });
  if (response.status !== 200) throw new Error(`deploy: ${response.status} ${await response.text()}`);
}

/** A worker that long-polls for `work` jobs and completes each, until stopped. */
function startWorker(url, batch) {
  let running = true;
  let completed = 0;
  const done = (async () => {
    while (running) {
      const { jobs } = await call(url, 'POST', '/jobs/activation', {
        type: 'work',
        worker: 'bench',
        timeout: 30_000,
        maxJobsToActivate: batch,
        requestTimeout: 200,
      });
      await Promise.all(jobs.map((job) => call(url, 'POST', `/jobs/${job.jobKey}/completion`, { variables: {} })));
      completed += jobs.length;
    }
  })();
  return {
    completed: () => completed,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

export const tasks = {
  async coldStart({ rounds }, { section }) {
    const { scratchDir } = await import('../lib/thresher.mjs');
    const times = [];
    await section(async () => {
      for (let round = 0; round < rounds; round++) {
        const scratch = scratchDir();
        const server = await serve(scratch.dir);
        for (;;) {
          const response = await fetch(`${server.url}/topology`).catch(() => undefined);
          if (response?.status === 200) break;
        }
        times.push(performance.now() - server.started);
        await server.stop();
        scratch.dispose();
      }
    });
    return {
      rounds,
      medianMs: percentile(times, 0.5),
      maxMs: Math.max(...times),
      measuredMs: times.reduce((a, b) => a + b),
    };
  },

  async awaitLatency({ instances }, { section }) {
    const { scratchDir } = await import('../lib/thresher.mjs');
    const scratch = scratchDir();
    const server = await serve(scratch.dir);
    await deploy(server.url);
    const worker = startWorker(server.url, 1);
    const create = () =>
      call(server.url, 'POST', '/process-instances', { processDefinitionId: 'bench', awaitCompletion: true });
    for (let i = 0; i < 20; i++) await create();
    const times = [];
    await section(async () => {
      for (let i = 0; i < instances; i++) {
        const started = performance.now();
        await create();
        times.push(performance.now() - started);
      }
    });
    await worker.stop();
    await server.stop();
    scratch.dispose();
    return {
      instances,
      p50: percentile(times, 0.5),
      p95: percentile(times, 0.95),
      measuredMs: times.reduce((a, b) => a + b),
    };
  },

  async apiJobs({ jobs }, { section }) {
    const { scratchDir } = await import('../lib/thresher.mjs');
    const scratch = scratchDir();
    const server = await serve(scratch.dir);
    await deploy(server.url);
    for (let i = 0; i < jobs; i++)
      await call(server.url, 'POST', '/process-instances', { processDefinitionId: 'bench' });
    let seconds = 0;
    await section(async () => {
      const started = performance.now();
      const worker = startWorker(server.url, 32);
      while (worker.completed() < jobs) await new Promise((resolve) => setTimeout(resolve, 5));
      seconds = (performance.now() - started) / 1000;
      await worker.stop();
    });
    await server.stop();
    scratch.dispose();
    return { jobs, jobsPerSecond: jobs / seconds, measuredMs: seconds * 1000 };
  },

  async inProcessJobs({ jobs }, { section }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const store = await openStore('sqlite');
    const engine = new Engine({ repository: store.repository, handlers: { work: () => ({}) } });
    await engine.deploy(oneJobModel);
    let seconds = 0;
    await section(async () => {
      const started = performance.now();
      const ids = [];
      for (let i = 0; i < jobs; i++) ids.push(await engine.start('bench'));
      for (const instanceId of ids) await engine.settled(instanceId);
      seconds = (performance.now() - started) / 1000;
    });
    await engine.close();
    await store.repository.close();
    await store.dispose();
    return { jobs, jobsPerSecond: jobs / seconds, measuredMs: seconds * 1000 };
  },
};

export function plan(quick) {
  return quick ? { rounds: 2, instances: 50, jobs: 200 } : { rounds: 5, instances: 300, jobs: 2000 };
}

export async function run(ctx) {
  const sizes = plan(ctx.quick);
  const measured = await ctx.measure({
    cold: { scenario: 'camunda-api', task: 'coldStart', options: { rounds: sizes.rounds } },
    latency: { scenario: 'camunda-api', task: 'awaitLatency', options: { instances: sizes.instances } },
    api: { scenario: 'camunda-api', task: 'apiJobs', options: { jobs: sizes.jobs } },
    local: { scenario: 'camunda-api', task: 'inProcessJobs', options: { jobs: sizes.jobs } },
  });
  return [
    {
      scenario: title,
      measure: 'cold start: spawning thresher serve (SQLite) to the first 200 from /v2/topology: median ms',
      thresher: { value: measured.cold.medianMs, unit: 'ms' },
      target: { text: '< 1,000 ms', on: 'thresher', holds: (v) => v < 1000 },
      note: `${sizes.rounds} starts on fresh files, the slowest ${Math.round(measured.cold.maxMs)} ms; Camunda's C8Run and Camunda Process Test start in 10–60 s`,
    },
    {
      scenario: title,
      measure: 'create-instance with awaitCompletion, one job served by an external worker on loopback: p95 ms',
      thresher: { value: measured.latency.p95, unit: 'ms' },
      note: `median ${measured.latency.p50.toFixed(1)} ms; ${sizes.instances} instances one after another, the worker long-polling one job at a time`,
    },
    {
      scenario: title,
      measure: 'jobs activated + completed per second through the API ÷ the same with an in-process handler',
      thresher: { value: measured.api.jobsPerSecond / measured.local.jobsPerSecond, unit: '×' },
      target: { text: '≥ 0.3×', on: 'thresher', holds: (v) => v >= 0.3 },
      note: `API ${Math.round(measured.api.jobsPerSecond)} jobs/s (32 a poll), in-process ${Math.round(measured.local.jobsPerSecond)}/s; ${sizes.jobs.toLocaleString('en-US')} one-job instances each, SQLite FULL`,
    },
  ];
}
