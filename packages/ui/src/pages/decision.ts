/**
 * A decision evaluation of an instance on the DMN model it came from (dmn-js): the called decision's table with the
 * rules that matched marked, and beside it what each decision evaluated took and gave; and a DMN file's decision
 * requirements graph.
 *
 * @module
 */
import { deploymentKind, type Engine } from '@thresher/engine';
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import { instanceHref, layout, type PageContext, time, valueText } from './layout.js';

/** The address of an instance's `n`-th decision evaluation (0 first, as `instance(id).decisions` lists them). */
export function decisionHref(ctx: PageContext, instanceId: string, n: number): string {
  return `${instanceHref(ctx, instanceId)}/decisions/${n}`;
}

/** The address of a DMN file's requirements graph. */
export function requirementsHref(ctx: PageContext, digest: string): string {
  return `${ctx.base}/decisions/${encodeURIComponent(digest)}`;
}

/** `/instances/:id/decisions/:n`. */
export async function decisionPage(ctx: PageContext, engine: Engine, instanceId: string, nText: string): Promise<Html> {
  const view = await engine.instance(instanceId);
  if (!view) throw new UiError(UiErrorCode.NotFound, `no instance ${instanceId} in this store`);
  const n = Number(nText);
  const record = Number.isSafeInteger(n) && n >= 0 ? view.decisions[n] : undefined;
  if (record === undefined) {
    throw new UiError(UiErrorCode.NotFound, `instance ${instanceId} has no decision evaluation ${nText}`);
  }
  const deployment = await engine.deployment(record.digest);
  if (deployment === undefined) {
    throw new UiError(
      UiErrorCode.NotFound,
      `the DMN file ${record.digest} of decision ${record.decisionId} is not stored`,
    );
  }
  const called = record.evaluated.at(-1);
  return layout(ctx, {
    title: `${record.decisionName} · ${view.processId}`,
    live: 'none',
    dmn: true,
    body: html`<p><a href="${instanceHref(ctx, view.id)}">← ${view.processId} <code>${view.id}</code></a></p>
<h1>${record.decisionName} <span class="sub">${record.decisionId} v${record.version} at ${record.elementId}, ${time(record.evaluatedAt)}</span></h1>
<p><a href="${requirementsHref(ctx, record.digest)}">Requirements graph of ${record.definitionId}</a></p>
<div class="decision-view"><div id="dmn" class="dmn"></div>
<aside class="evaluation">${record.failure === undefined ? html`<p>Result <code>${valueText(record.result)}</code></p>` : html`<p class="message">Failed: ${record.failure}</p>`}
${record.evaluated.map(
  (
    one,
  ) => html`<section class="evaluated" data-decision="${one.decisionId}"><h3>${one.decisionName} <span class="sub">${one.decisionType}</span></h3>
<p>Inputs</p><ul>${one.inputs.map((input) => html`<li><code>${input.name} = ${valueText(input.value)}</code></li>`)}</ul>
<p>${one.matchedRules.length} rule${one.matchedRules.length === 1 ? '' : 's'} matched</p><ul>${one.matchedRules.map(
    (rule) =>
      html`<li data-rule="${rule.ruleId}">rule ${rule.ruleIndex}: ${rule.outputs.map((output) => html`<code>${output.name} = ${valueText(output.value)}</code> `)}</li>`,
  )}</ul><p>Output <code>${valueText(one.output)}</code></p></section>`,
)}</aside></div>`,
    data: {
      kind: 'decision',
      dmn: deployment.xml,
      open: called?.decisionId ?? record.decisionId,
      matched: (called?.matchedRules ?? []).map((rule) => rule.ruleId),
    },
  });
}

/** `/decisions/:digest`: a deployed DMN file's decision requirements graph. */
export async function requirementsPage(ctx: PageContext, engine: Engine, digest: string): Promise<Html> {
  const deployment = await engine.deployment(digest);
  if (deployment === undefined || deploymentKind(deployment) !== 'dmn') {
    throw new UiError(UiErrorCode.NotFound, `no DMN file ${digest} in this store`);
  }
  // A file without DMNDI draws an empty graph: its decisions are offered one by one instead.
  const diagram = /<(?:[\w.-]+:)?DMNDiagram[\s>/]/.test(deployment.xml);
  return layout(ctx, {
    title: deployment.definitionId,
    live: 'none',
    dmn: true,
    body: html`<h1>${deployment.definitionId} <span class="sub">version ${deployment.version}</span></h1>
${!diagram && html`<p class="notice" id="no-drd">This DMN file has no diagram of its requirements: each of its decisions opens below.</p>`}
<nav class="dmn-views" id="dmn-views"></nav>
<div id="dmn" class="dmn"></div>`,
    data: { kind: 'requirements', dmn: deployment.xml, diagram },
  });
}
