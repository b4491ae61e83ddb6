// Scenario 12 — the Camunda API's searches, read from the search projection (issue 57). Rows a and b: 100,000
// process instances kept as the projection keeps them (each with one variable), searched through
// `POST /v2/process-instances/search` on loopback — by state (one in ten is ACTIVE: 10,000 match, the first page of
// 100 returned) and by a variable's value (one matches): p95 of the request's time, on SQLite (and on PostgreSQL
// when THRESHER_PG_URL is set). The rows are written straight into the store (putRows) as the projection writes
// them, after one real instance showed their shape, so filling 100,000 takes seconds. Row c: how far the projection
// is behind the write: a durable engine on SQLite runs instances of a one-service-task process one after another
// with the projection on, and each step's events are timed from the step's time to the batch that projected them
// being written: p99.
import { oneJobModel } from '../lib/models.mjs';
import { percentile } from '../lib/stats.mjs';

export const id = '12';
export const title = 'Searches from the projection (Camunda API)';

/** One real instance's rows, as the projection wrote them: the shapes the filled rows copy. */
async function sampleRows(repository, engine, projection) {
  const instanceId = await engine.start('bench', { variables: { order: 'o-sample' } });
  await engine.settled(instanceId);
  await projection.caughtUp();
  const of = async (kind) => (await repository.searchRows({ kind, limit: 1 })).rows[0];
  return { instance: await of('processInstance'), variable: await of('variable') };
}

/** `n` instance rows like `sample` (state ACTIVE for one in ten), each with a variable `order` = "o-<i>". */
function filledRows(sample, n, from) {
  const rows = [];
  const base = JSON.parse(sample.instance.fields.body);
  const variableBase = JSON.parse(sample.variable.fields.body);
  for (let i = from; i < from + n; i++) {
    const key = String(2 ** 40 + i);
    const body = { ...base, processInstanceKey: key, state: i % 10 === 0 ? 'ACTIVE' : 'COMPLETED' };
    body.startDate = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    rows.push({ kind: 'processInstance', key, fields: { ...body, body: JSON.stringify(body) } });
    const variableKey = String(2n ** 60n + BigInt(i));
    const variable = {
      ...variableBase,
      variableKey,
      name: 'order',
      value: `"o-${i}"`,
      processInstanceKey: key,
      scopeKey: key,
    };
    rows.push({ kind: 'variable', key: variableKey, fields: { ...variable, body: JSON.stringify(variable) } });
  }
  return rows;
}

export const tasks = {
  async search({ store: kind, n, queries }, { section }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const { SearchProjection, startCamundaRestServer } = await import('@thresher/rest');
    const store = await openStore(kind, kind === 'sqlite' ? { synchronous: 'NORMAL' } : {});
    const { repository } = store;
    const engine = new Engine({ repository, handlers: { work: () => ({}) } });
    await engine.deploy(oneJobModel);
    const projection = new SearchProjection(engine, repository, { pollMs: 60_000 });
    const sample = await sampleRows(repository, engine, projection);
    await projection.close();
    let after = null;
    const chunk = 5000;
    for (let from = 0; from < n; from += chunk) {
      const position = `bench-${from}`;
      const put = filledRows(sample, Math.min(chunk, n - from), from);
      if (!(await repository.putRows({ projection: 'bench-fill', after, position, put })))
        throw new Error('fill raced');
      after = position;
    }
    const server = await startCamundaRestServer({ engine, projection, port: 0 });
    const search = async (filter) => {
      const response = await fetch(`${server.url}/process-instances/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ filter, page: { limit: 100 } }),
      });
      if (response.status !== 200) throw new Error(`search answered ${response.status}: ${await response.text()}`);
      return response.json();
    };
    const byState = { state: 'ACTIVE' };
    const byVariable = { variables: [{ name: 'order', value: `"o-${Math.floor(n / 2)}"` }] };
    const check = async (filter, total) => {
      const found = await search(filter);
      if (found.page.totalItems !== total) throw new Error(`expected ${total} matches, got ${found.page.totalItems}`);
    };
    await check(byState, Math.ceil(n / 10));
    await check(byVariable, 1);
    const times = { state: [], variable: [] };
    await section(async () => {
      for (let i = 0; i < queries; i++) {
        for (const [name, filter] of [
          ['state', byState],
          ['variable', byVariable],
        ]) {
          const started = performance.now();
          await search(filter);
          times[name].push(performance.now() - started);
        }
      }
    });
    await server.close();
    await engine.close();
    await repository.close();
    await store.dispose();
    return {
      n,
      stateP95: percentile(times.state, 0.95),
      variableP95: percentile(times.variable, 0.95),
      measuredMs: [...times.state, ...times.variable].reduce((a, b) => a + b, 0),
    };
  },

  async lag({ instances }, { section }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const { SearchProjection } = await import('@thresher/rest');
    const store = await openStore('sqlite');
    const engine = new Engine({ repository: store.repository, handlers: { work: () => ({ done: true }) } });
    await engine.deploy(oneJobModel);
    const lags = [];
    let measuring = false;
    const projection = new SearchProjection(engine, store.repository, {
      onBatch: ({ events }) => {
        if (!measuring) return;
        const now = Date.now();
        for (const { event } of events) if (event.type === 'checkpoint.saved') lags.push(now - event.at);
      },
    });
    for (let i = 0; i < 50; i++) await engine.settled(await engine.start('bench', { variables: { i } }));
    await projection.caughtUp();
    measuring = true;
    await section(async () => {
      for (let i = 0; i < instances; i++) await engine.settled(await engine.start('bench', { variables: { i } }));
      await projection.caughtUp();
    });
    await projection.close();
    await engine.close();
    await store.repository.close();
    await store.dispose();
    return { instances, steps: lags.length, lagP99: percentile(lags, 0.99), lagP50: percentile(lags, 0.5) };
  },
};

export function plan(quick) {
  return quick ? { n: 10_000, queries: 20, instances: 200 } : { n: 100_000, queries: 100, instances: 2000 };
}

export async function run(ctx) {
  const sizes = plan(ctx.quick);
  const stores = ['sqlite', ...(process.env.THRESHER_PG_URL ? ['postgres'] : [])];
  const specs = Object.fromEntries(
    stores.map((store) => [
      store,
      { scenario: 'search', task: 'search', options: { store, n: sizes.n, queries: sizes.queries } },
    ]),
  );
  specs.lag = { scenario: 'search', task: 'lag', options: { instances: sizes.instances } };
  const measured = await ctx.measure(specs);
  const rows = [];
  for (const store of stores) {
    const name = store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    for (const [field, what] of [
      ['stateP95', 'by state'],
      ['variableP95', "by a variable's value"],
    ]) {
      rows.push({
        scenario: title,
        measure: `${sizes.n.toLocaleString('en-US')} process instances searched ${what}, ${name}: p95 ms`,
        thresher: { value: measured[store][field], unit: 'ms' },
        target: { text: '≤ 200 ms', on: 'thresher', holds: (v) => v <= 200 },
        note: `POST /v2/process-instances/search on loopback, first page of 100 with totalItems; ${sizes.queries} searches`,
      });
    }
  }
  rows.push({
    scenario: title,
    measure: 'projection lag behind the write, durable SQLite, instances one after another: p99 ms',
    thresher: { value: measured.lag.lagP99, unit: 'ms' },
    target: { text: '< 100 ms', on: 'thresher', holds: (v) => v < 100 },
    note: `from each step's time to its batch written (median ${Math.round(measured.lag.lagP50)} ms); ${measured.lag.steps.toLocaleString('en-US')} steps of ${sizes.instances.toLocaleString('en-US')} one-task instances`,
  });
  return rows;
}
