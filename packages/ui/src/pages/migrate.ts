/**
 * A process version page's migration form: the running instances of this version moved onto another version of
 * the same file as one batch operation, with a mapping editor that proposes each element's namesake (same id, same
 * type) in the target; the batch's page shows its progress.
 *
 * @module
 */
import type { Deployment, Engine } from '@thresher/engine';
import { type Html, html } from '../html.js';
import type { Models } from '../models.js';
import { actionForm } from './actions.js';
import type { PageContext } from './layout.js';

/** What the migration forms act on (their token's subject): a version's instances, not one instance. */
export function migrateSubject(definitionId: string, version: number): string {
  return `migrate:${definitionId}:${version}`;
}

export async function migrateSection(
  ctx: PageContext,
  models: Models,
  from: Deployment,
  versions: readonly Deployment[],
  running: number,
  params: URLSearchParams,
): Promise<Html | null> {
  const targets = versions.filter((d) => d.version !== from.version);
  if (ctx.readOnly || running === 0 || targets.length === 0) return null;
  const chosen = Number(params.get('migrateTo') ?? targets.at(-1)!.version);
  const to = targets.find((d) => d.version === chosen) ?? targets.at(-1)!;
  const [source, target] = await Promise.all([models.model(from), models.model(to)]);
  const rows: Html[] = [];
  for (const [processId, process] of source.processes) {
    const other = target.processes.get(processId);
    if (other === undefined) continue;
    for (const node of process.nodes.values()) {
      if (node.type === 'startEvent' || node.type === 'endEvent') continue;
      const same = [...other.nodes.values()].filter((candidate) => candidate.type === node.type);
      const proposed = same.find((candidate) => candidate.id === node.id)?.id ?? '';
      rows.push(html`<tr data-source="${node.id}"><td>${node.id}</td><td>${node.type}</td><td><select name="map" data-source="${node.id}">
<option value="">not mapped</option>${same.map((candidate) => html`<option value="${node.id}=${candidate.id}"${candidate.id === proposed ? ' selected' : ''}>${candidate.id}</option>`)}</select></td></tr>`);
    }
  }
  const fields = html`<input type="hidden" name="definition" value="${from.definitionId}"><input type="hidden" name="from" value="${String(from.version)}"><input type="hidden" name="to" value="${String(to.version)}">
<table class="grid" id="migration-mapping"><thead><tr><th>Element</th><th>Type</th><th>Maps to (v${String(to.version)})</th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`<section data-section="migrate" id="migrate"><h2>Migrate instances</h2>
<form method="get" class="migrate-target"><label>Onto version <select name="migrateTo">${targets.map((d) => html`<option value="${String(d.version)}"${d.version === to.version ? ' selected' : ''}>v${String(d.version)}</option>`)}</select></label> <button type="submit">Propose a mapping</button></form>
<p class="sub">The ${running} running instance${running === 1 ? '' : 's'} of this version, as one batch operation. Each element is proposed its namesake of the same type; an active element left unmapped fails its instance's item, by name.</p>
${actionForm(ctx, migrateSubject(from.definitionId, from.version), 'migrate-instances', `Migrate ${running} onto v${String(to.version)}`, fields, 'migrate', `Migrate the running instances of v${String(from.version)} onto v${String(to.version)}?`)}</section>`;
}

/** The running instances of a deployment, as the store indexes them. */
export async function runningOf(engine: Engine, deployment: Deployment): Promise<string[]> {
  const ids: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await engine.instances({
      definition: deployment.definitionId,
      status: 'running',
      limit: 1000,
      ...(after === undefined ? {} : { after }),
    });
    for (const one of page) if (one.definitionDigest === deployment.digest) ids.push(one.instanceId);
    if (page.length < 1000) return ids;
    after = page.at(-1)!.instanceId;
  }
}
