import type { Engine, InstanceQuery, InstanceSummary } from '@thresher/engine';
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import { instanceHref, layout, type PageContext, status } from './layout.js';

const PAGE_SIZE = 50;
const STATUSES = ['running', 'completed', 'terminated'] as const;

/** The list's filters, as the address carries them. */
export interface InstanceFilters {
  processId?: string;
  definition?: string;
  status?: (typeof STATUSES)[number];
  businessKey?: string;
  root?: string;
  before?: string;
}

/** Reads the filters from the query string; an unknown status is refused by name. */
export function readFilters(params: URLSearchParams): InstanceFilters {
  const filters: InstanceFilters = {};
  for (const name of ['processId', 'definition', 'businessKey', 'root', 'before'] as const) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  const wanted = params.get('status');
  if (wanted) {
    const known = STATUSES.find((s) => s === wanted);
    if (!known)
      throw new UiError(UiErrorCode.BadRequest, `status must be one of ${STATUSES.join(', ')}, got "${wanted}"`);
    filters.status = known;
  }
  return filters;
}

/** `/instances`: newest first, paged, filtered; with `root`, that call tree nested under its root. */
export async function instancesPage(ctx: PageContext, engine: Engine, filters: InstanceFilters): Promise<Html> {
  const query: InstanceQuery = {
    ...(filters.processId ? { processId: filters.processId } : {}),
    ...(filters.definition ? { definition: filters.definition } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.businessKey ? { businessKey: filters.businessKey } : {}),
  };
  const body = filters.root
    ? tree(ctx, filters.root, await engine.instances({ ...query, rootId: filters.root }))
    : await page(ctx, engine, query, filters);
  return layout(ctx, {
    title: 'Instances',
    live: filters.root ? `root:${filters.root}` : filters.definition ? `definition:${filters.definition}` : 'all',
    body: html`<h1>Instances</h1>${filterForm(ctx, filters)}${body}`,
  });
}

function filterForm(ctx: PageContext, filters: InstanceFilters): Html {
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${filters.status === value || (!filters.status && value === '') ? html`selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="${ctx.base}/instances">
<label>Process <input name="processId" value="${filters.processId ?? ''}"></label>
<label>Definition <input name="definition" value="${filters.definition ?? ''}"></label>
<label>Status <select name="status">${option('', 'any')}${STATUSES.map((s) => option(s, s))}</select></label>
<label>Business key <input name="businessKey" value="${filters.businessKey ?? ''}"></label>
<label>Call tree of <input name="root" value="${filters.root ?? ''}" placeholder="root instance id"></label>
<button type="submit">Filter</button> <a href="${ctx.base}/instances">clear</a></form>`;
}

async function page(ctx: PageContext, engine: Engine, query: InstanceQuery, filters: InstanceFilters): Promise<Html> {
  const found = await engine.instances({
    ...query,
    order: 'desc',
    limit: PAGE_SIZE + 1,
    ...(filters.before ? { before: filters.before } : {}),
  });
  const shown = found.slice(0, PAGE_SIZE);
  if (shown.length === 0) return html`<p class="empty">No instance matches.</p>`;
  const last = shown[shown.length - 1];
  const next = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (name !== 'before' && value) next.set(name, value);
  if (last) next.set('before', last.instanceId);
  return html`<table class="grid" id="instances"><thead><tr><th>Instance</th><th>Process</th><th>Status</th><th>Business key</th><th>Parent</th><th>Call tree</th></tr></thead>
<tbody>${shown.map((s) => row(ctx, s))}</tbody></table>
${found.length > PAGE_SIZE && html`<p class="pager"><a id="older" href="${ctx.base}/instances?${next.toString()}">Older →</a></p>`}`;
}

function row(ctx: PageContext, s: InstanceSummary): Html {
  return html`<tr data-instance="${s.instanceId}"><td><a href="${instanceHref(ctx, s.instanceId)}"><code>${s.instanceId}</code></a></td>
<td>${s.processId} <span class="sub">${s.definitionId}</span></td><td>${status(s.status)}</td><td>${s.businessKey ?? ''}</td>
<td>${s.parentId && html`<a href="${instanceHref(ctx, s.parentId)}"><code>${s.parentId.slice(0, 8)}…</code></a> at ${s.callNodeId}`}</td>
<td><a href="${ctx.base}/instances?root=${encodeURIComponent(s.rootId)}">tree</a></td></tr>`;
}

/** A call tree nested under its root: each instance under the instance that called it. */
function tree(ctx: PageContext, rootId: string, members: InstanceSummary[]): Html {
  if (members.length === 0)
    return html`<p class="empty">No call tree is rooted at <code>${rootId}</code> (with these filters).</p>`;
  const byParent = new Map<string | null, InstanceSummary[]>();
  const ids = new Set(members.map((m) => m.instanceId));
  for (const member of members) {
    // A member whose parent is filtered out hangs from the root of what is shown.
    const parent = member.parentId !== null && ids.has(member.parentId) ? member.parentId : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), member]);
  }
  const branch = (parent: string | null): Html => {
    const children = byParent.get(parent) ?? [];
    return html`<ul class="tree">${children.map(
      (s) =>
        html`<li data-instance="${s.instanceId}"><a href="${instanceHref(ctx, s.instanceId)}"><code>${s.instanceId}</code></a> ${s.processId} ${status(s.status)}${s.callNodeId && html` <span class="sub">called at ${s.callNodeId}</span>`}${branch(s.instanceId)}</li>`,
    )}</ul>`;
  };
  return html`<section id="tree">${branch(null)}</section>`;
}
