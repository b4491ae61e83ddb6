import type { Engine } from '@thresher/engine';
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import type { Models } from '../models.js';
import { heat, versionCounts } from '../survey.js';
import { diagramBlock, elementRows } from './diagram.js';
import { layout, type PageContext, processHref, time } from './layout.js';
import { migrateSection } from './migrate.js';

/** `/processes/:definition/:version`: the diagram with, per element, instances waiting, passed, holding incidents. */
export async function processPage(
  ctx: PageContext,
  engine: Engine,
  models: Models,
  definitionId: string,
  version: number,
  limit: number,
  params: URLSearchParams = new URLSearchParams(),
): Promise<Html> {
  const versions = await engine.deployments(definitionId);
  const deployment = versions.find((d) => d.version === version);
  if (!deployment) throw new UiError(UiErrorCode.NotFound, `no deployment of ${definitionId} at version ${version}`);
  const [model, diagram, counts] = await Promise.all([
    models.model(deployment),
    models.diagram(deployment),
    versionCounts(engine, definitionId, limit),
  ]);
  const count = counts.get(deployment.digest);
  const counted = await heat(engine, count ?? { newest: [], capped: false });
  const others = versions
    .filter((d) => d.version !== version)
    .map((d) => html` <a href="${processHref(ctx, definitionId, d.version)}">v${d.version}</a>`);
  const names = [...model.processes.values()].map((p) => p.name ?? p.id).join(', ');
  const body = html`<h1>${names} <span class="sub">${definitionId} · version ${version}</span></h1>
<p class="meta">Deployed ${time(deployment.deployedAt)} · digest <code>${deployment.digest.slice(0, 12)}</code>
${others.length > 0 && html` · other versions:${others}`}
· <a href="${ctx.base}/instances?definition=${encodeURIComponent(definitionId)}">instances</a>
${count && html` · running ${count.running}, completed ${count.completed}, terminated ${count.terminated}, open incidents ${count.incidents}`}</p>
${diagramBlock(diagram)}
<p class="legend"><span class="heat-waiting">waiting now</span> <span class="heat-passed">passed</span> <span class="heat-incidents">incidents</span>
— counted over ${counted.capped ? `the newest ${counted.counted}` : `all ${counted.counted}`} instances of this version.</p>
${await migrateSection(ctx, models, deployment, versions, count?.running ?? 0, params)}
<section data-section="elements"><h2>Elements</h2>
<table class="grid" id="elements"><thead><tr><th>Element</th><th>Type</th><th>Waiting</th><th>Passed</th><th>Incidents</th></tr></thead>
<tbody>${elementRows(model, (id) => {
    const at = counted.elements[id];
    return html`<td class="num">${at?.waiting ?? 0}</td><td class="num">${at?.passed ?? 0}</td><td class="num">${at?.incidents ?? 0}</td>`;
  })}</tbody></table></section>`;
  return layout(ctx, {
    title: `${names} v${version}`,
    live: `definition:${definitionId}`,
    body,
    data: { kind: 'process', xml: diagram.xml, heat: counted.elements },
  });
}
