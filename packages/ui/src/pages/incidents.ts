/**
 * `/incidents`: the open incidents of every instance, read from the search projection, grouped by process, element
 * and error message with their counts; a group opened lists its incidents, each retried in place and linked to its
 * instance.
 *
 * @module
 */
import type { IncidentGroup, IncidentList, IncidentListItem } from '@thresher/rest';
import { type Html, html } from '../html.js';
import { actionForm } from './actions.js';
import { dateText, instanceHref, layout, type PageContext } from './layout.js';
import { morePager, PAGE_SIZE, pageStart } from './paging.js';

const GROUP_FIELDS = ['processId', 'elementId', 'errorMessage'] as const;

/** What the groups' retry forms act on (their token's subject): the groups, not one instance. */
export const GROUPS_SUBJECT = 'incident-groups';

/** `/incidents` (the groups), or `/incidents?processId=…&elementId=…&errorMessage=…` (one group's incidents). */
export async function incidentsPage(
  ctx: PageContext,
  incidents: IncidentList | undefined,
  params: URLSearchParams,
  /** Whether a whole group can be retried as one batch operation (the view has a `BatchList`). */
  batches = false,
): Promise<Html> {
  if (incidents === undefined) {
    return layout(ctx, {
      title: 'Incidents',
      live: 'none',
      body: html`<h1>Incidents</h1><p class="notice" id="no-incident-list">The incidents across instances are read from the search projection of the Camunda API: <code>thresher serve --ui</code> and <code>thresher ui</code> keep one; an app passes <code>incidents: new IncidentList(engine, projection)</code> to <code>createUiHandler</code>.</p>`,
    });
  }
  // What this view's own retries did shows at once: the projection reads the log up to now first.
  await incidents.caughtUp();
  const group: Record<string, string> = {};
  for (const name of GROUP_FIELDS) {
    const value = params.get(name);
    if (value !== null) group[name] = value;
  }
  const opened = Object.keys(group).length > 0;
  const body = opened ? await members(ctx, incidents, group, params) : groups(ctx, await incidents.groups(), batches);
  return layout(ctx, { title: 'Incidents', live: 'all', body: html`<h1>Incidents</h1>${body}` });
}

function groups(ctx: PageContext, found: IncidentGroup[], batches: boolean): Html {
  if (found.length === 0) return html`<p class="empty" id="no-incidents">No open incident.</p>`;
  const total = found.reduce((sum, group) => sum + group.count, 0);
  return html`<p class="sub" id="incident-count">${total} open incident${total === 1 ? '' : 's'} in ${found.length} group${found.length === 1 ? '' : 's'}</p>
<table class="grid" id="incident-groups"><thead><tr><th>Process</th><th>Element</th><th>Kind</th><th>Message</th><th class="num">Open</th><th></th></tr></thead>
<tbody>${found.map((group) => {
    const query = new URLSearchParams({
      processId: group.processId,
      elementId: group.elementId,
      errorMessage: group.errorMessage,
    });
    return html`<tr data-group="${query.toString()}"><td>${group.processId}</td><td>${group.elementId}</td><td>${group.errorType}</td>
<td class="message"><a href="${ctx.base}/incidents?${query.toString()}">${group.errorMessage || '(no message)'}</a></td><td class="num">${group.count}</td>
<td>${batches && actionForm(ctx, GROUPS_SUBJECT, 'retry-group', `Retry all ${group.count}`, html`<input type="hidden" name="processId" value="${group.processId}"><input type="hidden" name="elementId" value="${group.elementId}"><input type="hidden" name="errorMessage" value="${group.errorMessage}">`, '', `Retry the ${group.count} incidents of this group as one batch operation?`)}</td></tr>`;
  })}</tbody></table>`;
}

async function members(
  ctx: PageContext,
  incidents: IncidentList,
  group: Record<string, string>,
  params: URLSearchParams,
): Promise<Html> {
  const from = pageStart(params);
  const found = await incidents.search({ ...group, from, limit: PAGE_SIZE });
  const back = `incidents?${params.toString()}`;
  return html`<p><a href="${ctx.base}/incidents">← all groups</a></p>
<p class="sub" id="incident-count">${found.total} open incident${found.total === 1 ? '' : 's'}${group.elementId && html` at ${group.elementId}`}${group.processId && html` of ${group.processId}`}</p>
${
  found.items.length === 0
    ? html`<p class="empty">None is open now.</p>`
    : html`<table class="grid" id="incidents"><thead><tr><th>Instance</th><th>Element</th><th>Kind</th><th>Message</th><th>Raised</th><th></th></tr></thead>
<tbody>${found.items.map((incident) => row(ctx, incident, back))}</tbody></table>`
}
${morePager(ctx, 'incidents', params, from, found.total)}`;
}

function row(ctx: PageContext, incident: IncidentListItem, back: string): Html {
  const fields = html`<input type="hidden" name="incident" value="${incident.incidentId}"><input type="hidden" name="back" value="${back}">`;
  return html`<tr data-incident="${incident.incidentId}"><td><a href="${instanceHref(ctx, incident.instanceId)}"><code>${incident.instanceId}</code></a></td>
<td>${incident.elementId}</td><td>${incident.errorType}</td><td class="message">${incident.errorMessage}</td><td>${dateText(incident.creationTime)}</td>
<td>${actionForm(ctx, incident.instanceId, 'retry', 'Retry', fields)}</td></tr>`;
}
