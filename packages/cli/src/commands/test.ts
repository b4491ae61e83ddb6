import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  type Fixture,
  FixtureError,
  type FixtureReport,
  type KillPlan,
  loadFixture,
  runFixture,
} from '@thresher/engine/testing';
import { type KillOption, parseTestArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { runSigkillFixture, seededRandom } from '../fixture-sigkill.js';
import { commandHelp } from '../help.js';
import type { Output } from '../output.js';

const SUFFIX = '.fixture.yaml';

/** Every `*.fixture.yaml` under `path` (or `path` itself), sorted, node_modules skipped. */
function discover(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw new UsageError(`no such fixture or folder: ${path}`, 'thresher test [PATH...]');
  }
  if (!stat.isDirectory()) return [path];
  const found: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...discover(child));
    else if (entry.name.endsWith(SUFFIX)) found.push(child);
  }
  return found.sort();
}

interface Failed {
  file: string;
  name: string;
  ok: false;
  error: string;
}

function describePlan(plan: KillOption | KillPlan, report: FixtureReport): string {
  if (plan.kind === 'random') return `${report.tried.length} SIGKILLs (seed ${report.seed})`;
  if (plan.kind === 'none') return 'no kills';
  return `${report.tried.length} of ${report.persistPoints} persist points killed`;
}

function printReport(out: Output, cwd: string, report: FixtureReport, plan: KillOption | KillPlan): void {
  const where = relative(cwd, report.file);
  out.print(`${report.ok ? 'ok  ' : 'FAIL'} ${report.name} (${where}) — ${describePlan(plan, report)}`);
  for (const failure of report.expectationFailures) out.print(`     expectation: ${failure}`);
  for (const failure of report.failures.slice(0, 5)) {
    const at = plan.kind === 'random' ? `round ${failure.killAt}` : `kill at persist point ${failure.killAt}`;
    out.print(
      `     ${at}: ${failure.field} — expected ${JSON.stringify(failure.expected)}, got ${JSON.stringify(failure.actual)}`,
    );
  }
  if (report.failures.length > 5) out.print(`     … and ${report.failures.length - 5} more kill points failed`);
}

/**
 * `thresher test`: run kill-and-resume fixtures. Exit 0 only when every fixture's uninterrupted run meets
 * its expectations and every killed run ends the same.
 */
export async function testCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseTestArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('test'));
    return ExitCode.Ok;
  }
  const roots = args.paths.length > 0 ? args.paths.map((path) => resolve(io.cwd, path)) : [resolve(io.cwd, 'fixtures')];
  const files = roots.flatMap(discover);
  if (files.length === 0)
    throw new UsageError(`no ${SUFFIX} files under ${roots.join(', ')}`, 'thresher test [PATH...]');
  const seed = args.seed ?? Math.floor(seededRandom(Date.now())() * 2 ** 31);
  const results: (FixtureReport | Failed)[] = [];
  for (const file of files) {
    let fixture: Fixture;
    try {
      fixture = await loadFixture(file);
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      results.push({ file, name: relative(io.cwd, file), ok: false, error: error.message });
      out.print(`FAIL ${relative(io.cwd, file)} — ${error.message}`);
      continue;
    }
    const plan: KillOption | KillPlan = args.kill ?? fixture.kill;
    out.progress(`running ${fixture.name} …`);
    const onProgress = ({ killAt, of }: { killAt: number; of: number }) => {
      if (io.isTTY && !out.json) io.stderr.write(`\r  ${fixture.name}: kill ${killAt}/${of}   `);
    };
    try {
      const report =
        plan.kind === 'random'
          ? await runSigkillFixture(fixture, plan.count, args.seed ?? fixture.seed ?? seed, onProgress)
          : await runFixture(fixture, { kill: plan, onProgress });
      if (io.isTTY && !out.json) io.stderr.write('\r\u001b[K');
      results.push(report);
      printReport(out, io.cwd, report, plan);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      results.push({ file, name: fixture.name, ok: false, error: message });
      out.print(`FAIL ${fixture.name} — ${message}`);
    }
  }
  const failed = results.filter((result) => !result.ok).length;
  out.document({ ok: failed === 0, seed, fixtures: results });
  out.print(`${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? ExitCode.Ok : ExitCode.Failed;
}
