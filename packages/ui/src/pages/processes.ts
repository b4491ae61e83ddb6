import type { Engine } from '@thresher/engine';
import { type Html, html } from '../html.js';
import type { Models } from '../models.js';
import { versionCounts } from '../survey.js';
import { requirementsHref } from './decision.js';
import { layout, type PageContext, processHref, time } from './layout.js';

/** `/`: every deployed process and version, its instances by status and its open incidents. */
export async function processesPage(ctx: PageContext, engine: Engine, models: Models, limit: number): Promise<Html> {
  const processes = await models.processes();
  const definitions = [...new Set(processes.map((p) => p.definitionId))];
  const counts = new Map<string, Awaited<ReturnType<typeof versionCounts>>>();
  for (const definitionId of definitions) counts.set(definitionId, await versionCounts(engine, definitionId, limit));
  const list = (definitionId: string, processId: string | null, status: string, n: number) => {
    const filter = new URLSearchParams({ definition: definitionId, ...(processId ? { processId } : {}), status });
    return n === 0
      ? html`<td class="num">0</td>`
      : html`<td class="num"><a href="${ctx.base}/instances?${filter.toString()}">${n}</a></td>`;
  };
  const rows = processes.map((p) => {
    const version = counts.get(p.definitionId)?.get(p.digest);
    const count = (p.processId === null ? version : version?.byProcess.get(p.processId)) ?? {
      running: 0,
      completed: 0,
      terminated: 0,
      incidents: 0,
    };
    if (p.processId === null) {
      return html`<tr data-definition="${p.definitionId}" data-version="${p.version}"><td class="message">cannot be compiled here: ${p.failure}</td>
<td>${p.definitionId}</td><td class="num">${p.version}</td><td>${time(p.deployedAt)}</td>${list(p.definitionId, p.processId, 'running', count.running)}${list(p.definitionId, p.processId, 'completed', count.completed)}${list(p.definitionId, p.processId, 'terminated', count.terminated)}<td></td></tr>`;
    }
    return html`<tr data-process="${p.processId}" data-version="${p.version}">
<td><a href="${processHref(ctx, p.definitionId, p.version)}">${p.name ?? p.processId}</a><div class="sub">${p.processId}</div></td>
<td>${p.definitionId}</td><td class="num">${p.version}</td><td>${time(p.deployedAt)}</td>
${list(p.definitionId, p.processId, 'running', count.running)}${list(p.definitionId, p.processId, 'completed', count.completed)}${list(p.definitionId, p.processId, 'terminated', count.terminated)}
<td class="num ${count.incidents > 0 ? 'incidents' : ''}" data-incidents="${count.incidents}">${count.incidents}</td></tr>`;
  });
  const body =
    processes.length === 0
      ? html`<h1>Processes</h1><p class="empty">No process is deployed in this store yet: <code>thresher run FILE.bpmn</code> or <code>engine.deploy(xml)</code> deploys one.</p>`
      : html`<h1>Processes</h1>
<table class="grid" id="processes"><thead><tr><th>Process</th><th>Definition</th><th>Version</th><th>Deployed</th><th>Running</th><th>Completed</th><th>Terminated</th><th>Incidents</th></tr></thead>
<tbody>${rows}</tbody></table>
<p class="note">Counts are per process and version (the instance links list every version of the process); incidents are counted over the newest ${limit} running instances of each version.</p>`;
  const dmn = await models.dmnFiles();
  const decisions =
    dmn.length > 0 &&
    html`<h2>Decisions</h2><table class="grid" id="dmn-files"><thead><tr><th>DMN file</th><th>Version</th><th>Deployed</th></tr></thead><tbody>${dmn.map(
      (d) =>
        html`<tr data-dmn="${d.definitionId}" data-version="${d.version}"><td><a href="${requirementsHref(ctx, d.digest)}">${d.definitionId}</a></td><td class="num">${d.version}</td><td>${time(d.deployedAt)}</td></tr>`,
    )}</tbody></table>`;
  return layout(ctx, { title: 'Processes', live: 'all', body: html`${body}${decisions}` });
}
