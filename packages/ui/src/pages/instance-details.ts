import type { InstanceSummary, InstanceView } from '@thresher/engine';
import { type Html, html } from '../html.js';
import { actionForm } from './actions.js';
import { instanceHref, type PageContext, status, time, valueText } from './layout.js';

/**
 * What an instance holds and did: the instances it called (`tree`: its call tree's members, of which those under it
 * are shown nested), variables per scope, touchpoints, decisions, history.
 */
export function instanceDetails(ctx: PageContext, view: InstanceView, tree: InstanceSummary[]): Html {
  return html`${called(ctx, view, tree)}${variables(ctx, view)}${touchpoints(view)}${decisions(view)}${history(view)}`;
}

function called(ctx: PageContext, view: InstanceView, tree: InstanceSummary[]): Html | null {
  const byParent = new Map<string, InstanceSummary[]>();
  for (const member of tree) {
    if (member.parentId === null) continue;
    byParent.set(member.parentId, [...(byParent.get(member.parentId) ?? []), member]);
  }
  if (!byParent.has(view.id) && view.calls.length === 0) return null;
  const branch = (parent: string, seen: ReadonlySet<string>): Html =>
    html`<ul class="tree">${(byParent.get(parent) ?? [])
      .filter((child) => !seen.has(child.instanceId))
      .map(
        (child) =>
          html`<li data-instance="${child.instanceId}"><a href="${instanceHref(ctx, child.instanceId)}"><code>${child.instanceId}</code></a> ${child.processId} ${status(child.status)} <span class="sub">at ${child.callNodeId}</span>${branch(child.instanceId, new Set([...seen, child.instanceId]))}</li>`,
      )}</ul>`;
  return html`<section data-section="children" id="children"><h2>Called instances</h2>${branch(view.id, new Set([view.id]))}</section>`;
}

function variables(ctx: PageContext, view: InstanceView): Html {
  const scopes = Object.entries(view.scopes);
  return html`<section data-section="variables" id="variables"><h2>Variables</h2>${
    scopes.length === 0
      ? html`<p class="empty">No open scope${view.status === 'running' ? '' : ': the instance ended'}.</p>${
          Object.keys(view.variables).length > 0 && table('/', view.variables)
        }`
      : scopes.map(([path, vars]) => html`${table(path, vars)}${edit(ctx, view, path, vars)}`)
  }</section>`;
}

function table(path: string, vars: Record<string, unknown>): Html {
  const names = Object.keys(vars).sort();
  return html`<h3 class="scope">Scope <code>${path}</code></h3>${
    names.length === 0
      ? html`<p class="empty">no variables</p>`
      : html`<table class="grid vars" data-scope="${path}"><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>${names.map(
          (name) =>
            html`<tr data-variable="${name}"><td><code>${name}</code></td><td><pre>${valueText(vars[name])}</pre></td></tr>`,
        )}</tbody></table>`
  }`;
}

/** Operate's variable edit: one of the scope's variables, or a new one, set to a JSON value checked before it is sent. */
function edit(ctx: PageContext, view: InstanceView, path: string, vars: Record<string, unknown>): Html | null {
  if (view.status !== 'running') return null;
  const names = Object.keys(vars).sort();
  const fields = html`<input type="hidden" name="scope" value="${path}">
<label>Name <input name="name" list="names-${path}" required spellcheck="false"></label><datalist id="names-${path}">${names.map((name) => html`<option value="${name}">`)}</datalist>
<label>Value (JSON) <input name="value" data-json required spellcheck="false" placeholder='"text", 42, true, {"a": 1}'></label><span class="json-error error"></span>`;
  const form = actionForm(ctx, view.id, 'set-variable', 'Set variable', fields);
  return form && html`<div class="scope-edit" data-scope-edit="${path}">${form}</div>`;
}

function touchpoints(view: InstanceView): Html | null {
  if (!view.touchpoints || view.touchpoints.length === 0) return null;
  return html`<section data-section="touchpoints" id="touchpoints"><h2>Touchpoints</h2>
<table class="grid"><thead><tr><th>Element</th><th>Kind</th><th>State</th><th>Attempts</th><th>Asked</th><th>Answered</th><th>Response</th></tr></thead><tbody>
${view.touchpoints.map(
  (
    t,
  ) => html`<tr data-touchpoint="${t.elementId}"><td>${t.label ?? t.elementId} <span class="sub">${t.elementId}</span></td><td>${t.direction} ${t.kind}${t.via && ` via ${t.via}`}</td>
<td>${t.state}</td><td class="num">${t.attempts}</td><td>${time(t.askedAt)}</td><td>${time(t.answeredAt)}</td><td>${t.responseS === null ? '' : `${t.responseS} s`}</td></tr>`,
)}</tbody></table></section>`;
}

function decisions(view: InstanceView): Html | null {
  if (view.decisions.length === 0) return null;
  return html`<section data-section="decisions" id="decisions"><h2>Decisions</h2>${view.decisions.map(
    (
      d,
    ) => html`<article class="decision"><h3>${d.decisionName} <span class="sub">${d.decisionId} v${d.version} at ${d.elementId}, ${time(d.evaluatedAt)}</span></h3>
${d.failure === undefined ? html`<p>Result <code>${valueText(d.result)}</code></p>` : html`<p class="message">Failed: ${d.failure}</p>`}
${d.evaluated.map(
  (
    e,
  ) => html`<details><summary>${e.decisionName} (${e.decisionType}): ${e.matchedRules.length} rule(s) matched</summary>
<p>Inputs: ${e.inputs.map((i) => html`<code>${i.name} = ${valueText(i.value)}</code> `)}</p><p>Output <code>${valueText(e.output)}</code></p></details>`,
)}</article>`,
  )}</section>`;
}

function history(view: InstanceView): Html {
  return html`<section data-section="history" id="history"><h2>History</h2>${
    view.history.length === 0
      ? html`<p class="empty">Nothing completed yet.</p>`
      : html`<ol class="history">${view.history.map(
          (entry) =>
            html`<li data-node="${entry.node}">${entry.node}${entry.scope !== '/' && html` <span class="sub">in ${entry.scope}</span>`}</li>`,
        )}</ol>`
  }</section>`;
}
