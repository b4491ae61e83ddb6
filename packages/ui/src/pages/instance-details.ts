import { activationScope, type Engine, type InstanceSummary, type InstanceView } from '@thresher/engine';
import { type Html, html } from '../html.js';
import { actionForm } from './actions.js';
import { decisionHref } from './decision.js';
import { instanceHref, type PageContext, status, time, valueText } from './layout.js';

/**
 * What an instance holds and did: the instances it called (`tree`: its call tree's members, of which those under it
 * are shown nested), variables per scope, touchpoints, decisions, and its element instances (`activations`, as its
 * log tells them) nested as they ran.
 */
export function instanceDetails(
  ctx: PageContext,
  view: InstanceView,
  tree: InstanceSummary[],
  activations: ActivationHistory,
): Html {
  return html`${called(ctx, view, tree)}${variables(ctx, view)}${touchpoints(view)}${decisions(ctx, view)}${history(view, activations)}`;
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

function decisions(ctx: PageContext, view: InstanceView): Html | null {
  if (view.decisions.length === 0) return null;
  return html`<section data-section="decisions" id="decisions"><h2>Decisions</h2>${view.decisions.map(
    (
      d,
      n,
    ) => html`<article class="decision"><h3><a class="open-decision" href="${decisionHref(ctx, view.id, n)}">${d.decisionName}</a> <span class="sub">${d.decisionId} v${d.version} at ${d.elementId}, ${time(d.evaluatedAt)}</span></h3>
${d.failure === undefined ? html`<p>Result <code>${valueText(d.result)}</code></p>` : html`<p class="message">Failed: ${d.failure}</p>`}
${d.evaluated.map(
  (
    e,
  ) => html`<details><summary>${e.decisionName} (${e.decisionType}): ${e.matchedRules.length} rule(s) matched</summary>
<p>Inputs: ${e.inputs.map((i) => html`<code>${i.name} = ${valueText(i.value)}</code> `)}</p><p>Output <code>${valueText(e.output)}</code></p></details>`,
)}</article>`,
  )}</section>`;
}

function history(view: InstanceView, activations: ActivationHistory): Html {
  const tree = activationTree(activations.items);
  const branch = (parent: string | null): Html =>
    html`<ul class="tree">${(tree.get(parent) ?? []).map(
      (one) =>
        html`<li data-activation="${one.id}">${one.elementId} <span class="sub">${time(one.start)} – ${one.end === null ? 'active' : time(one.end)}</span>${tree.has(one.id) && branch(one.id)}</li>`,
    )}</ul>`;
  return html`<section data-section="history" id="history"><h2>History</h2>${
    activations.items.length === 0
      ? html`<p class="empty">${view.history.length === 0 ? 'Nothing ran yet.' : 'Its log is no longer kept.'}</p>`
      : html`${branch(null)}${activations.truncated && html`<p class="note">The first ${activations.items.length} element instances of its log.</p>`}`
  }</section>`;
}

/** An instance's element instances as its log tells them: when each began and ended (null while it runs). */
export interface ActivationHistory {
  items: { id: string; elementId: string; start: number; end: number | null }[];
  /** Whether the log held more than was read. */
  truncated: boolean;
}

const LOG_LIMIT = 5000;

/** Read an instance's element instances from its log (the first `LOG_LIMIT` events). */
export async function activationHistory(engine: Engine, instanceId: string): Promise<ActivationHistory> {
  const events = await engine.events({ instanceId, limit: LOG_LIMIT });
  const byId = new Map<string, ActivationHistory['items'][number]>();
  for (const { event } of events) {
    if (event.type === 'track.entered' && !byId.has(event.elementInstanceId)) {
      byId.set(event.elementInstanceId, {
        id: event.elementInstanceId,
        elementId: event.elementId,
        start: event.at,
        end: null,
      });
    } else if (event.type === 'track.left') {
      const known = byId.get(event.elementInstanceId);
      if (known) known.end = event.at;
    }
  }
  return { items: [...byId.values()], truncated: events.length === LOG_LIMIT };
}

/** A scope path and the paths it lies within, longest first: cut before each `/` and `[`. */
function enclosing(scope: string): string[] {
  const paths = [scope];
  for (let at = scope.length - 1; at > 0; at--)
    if (scope[at] === '/' || scope[at] === '[') paths.push(scope.slice(0, at));
  return paths;
}

/**
 * Activations under the activation whose scope holds them (null: the root's), in the order they began: an
 * activation's parent opens the longest scope its own scope path begins with — the scope itself, a body of it
 * (`[k]`) or one within it (`/…`).
 */
function activationTree(items: ActivationHistory['items']): Map<string | null, ActivationHistory['items']> {
  const opened = new Map(items.map((one) => [activationScope(one.id), one.id]));
  const tree = new Map<string | null, ActivationHistory['items']>();
  for (const one of [...items].sort((a, b) => a.start - b.start)) {
    const scope = one.id.slice(0, one.id.lastIndexOf(':', one.id.lastIndexOf(':') - 1));
    const host = enclosing(scope)
      .map((at) => opened.get(at))
      .find((candidate) => candidate !== undefined && candidate !== one.id);
    const parent = host ?? null;
    tree.set(parent, [...(tree.get(parent) ?? []), one]);
  }
  return tree;
}
