// Scenario 7 — kill-and-resume cost: the fixture harness (`runFixture` from @thresher/testing) on the
// largest fixture under fixtures/ — the one with the most persist points, hence kill points — with
// `{ kill: { kind: 'every' } }`: one uninterrupted run, then for every persist point a run killed right after
// it, recovered by a fresh engine and driven to the end, compared with the uninterrupted one. The figure is
// the harness's wall time divided by the number of kill points tried.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const id = '7';
export const title = 'Kill-and-resume cost';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function fixtureFiles(dir = join(ROOT, 'fixtures')) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'checkpoints') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...fixtureFiles(path));
    else if (entry.endsWith('.fixture.yaml')) out.push(path);
  }
  return out.sort();
}

export const tasks = {
  /** Every fixture's persist points, from one uninterrupted run each. */
  async survey() {
    const { runFixture } = await import('@thresher/testing');
    const fixtures = [];
    const skipped = [];
    for (const file of fixtureFiles()) {
      try {
        const report = await runFixture(file, { kill: { kind: 'none' } });
        if (!report.ok) throw new Error('its uninterrupted run does not meet its expectations');
        fixtures.push({ file, persistPoints: report.persistPoints, bytes: statSync(file).size });
      } catch (error) {
        // a fixture this build cannot run (a model using elements not built yet) is left out, and named
        skipped.push({ file, reason: String(error?.message ?? error).split('\n')[0] });
      }
    }
    return { fixtures, skipped };
  },

  async measure({ file }, { section }) {
    const { runFixture } = await import('@thresher/testing');
    await runFixture(file, { kill: { kind: 'every' } }); // warm-up
    const { report, ms } = await section(async () => {
      const started = performance.now();
      const report = await runFixture(file, { kill: { kind: 'every' } });
      return { report, ms: performance.now() - started };
    });
    if (!report.ok)
      throw new Error(`fixture ${file} failed: ${JSON.stringify(report.failures[0] ?? report.expectationFailures)}`);
    return { killPoints: report.tried.length, totalMs: ms, msPerKillPoint: ms / report.tried.length, measuredMs: ms };
  },
};

export async function run(ctx) {
  const { survey } = await ctx.measure({
    survey: { scenario: 'kill-resume', task: 'survey', options: {}, side: 'setup', runs: 1 },
  });
  if (survey.fixtures.length === 0) throw new Error('no fixture under fixtures/ runs on this build');
  const largest = survey.fixtures.reduce((a, b) =>
    b.persistPoints > a.persistPoints || (b.persistPoints === a.persistPoints && b.bytes > a.bytes) ? b : a,
  );
  const { result } = await ctx.measure({
    result: { scenario: 'kill-resume', task: 'measure', options: { file: largest.file } },
  });
  return [
    {
      scenario: title,
      measure: `time per kill point, ${relative(ROOT, largest.file)} (${result.killPoints} kill points)`,
      thresher: { value: result.msPerKillPoint, unit: 'ms' },
      note: `runFixture(…, { kill: { kind: 'every' } }) took ${Math.round(result.totalMs)} ms for the uninterrupted run plus ${result.killPoints} killed-and-recovered runs on the memory repository and a virtual clock; "largest" = most persist points among the ${survey.fixtures.length} fixtures this build runs${
        survey.skipped.length > 0
          ? ` (left out, not runnable on this build: ${survey.skipped.map((s) => relative(ROOT, s.file)).join(', ')})`
          : ''
      }`,
    },
  ];
}
