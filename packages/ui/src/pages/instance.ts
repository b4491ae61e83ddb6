import type { Deployment, Engine, InstanceView } from '@thresher/engine';
import type { ProcessModel } from '@thresher/engine/model';
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import type { Models } from '../models.js';
import { type Markers, markers } from '../survey.js';
import { actionForm } from './actions.js';
import { diagramBlock, elementRows } from './diagram.js';
import { activationHistory, instanceDetails } from './instance-details.js';
import { instanceHref, layout, type PageContext, processHref, status, time } from './layout.js';
import { repairSection } from './repair.js';
import { formsOf, type LinkedForms, taskArticle } from './task-article.js';

/** `/instances/:id`: the diagram with markers, what waits, what it holds, what it did, and the actions. */
export async function instancePage(
  ctx: PageContext,
  engine: Engine,
  models: Models,
  forms: LinkedForms,
  id: string,
  /** What the action that led here did (the address's `done`), shown once. */
  done: string | null = null,
): Promise<Html> {
  const view = await engine.instance(id);
  if (!view) throw new UiError(UiErrorCode.NotFound, `no instance ${id} in this store`);
  const deployment = await engine.deployment(view.digest);
  const model = deployment ? await models.model(deployment).catch(() => undefined) : undefined;
  const diagram = deployment
    ? await models.diagram(deployment)
    : { xml: null, why: `its deployment ${view.digest} is not stored` };
  const children = await engine.instances({ parentId: id });
  // The root of its call tree, as the store indexes it: its own id, else read from its own summary.
  const rootId =
    view.parentId === null
      ? view.id
      : (await engine.instances({ parentId: view.parentId })).find((s) => s.instanceId === id)?.rootId;
  // Every instance it called, at any depth: its part of the call tree.
  const called = rootId === undefined ? children : await engine.instances({ rootId });
  const taskForms = model && !ctx.readOnly ? formsOf(model, view, view.userTasks, forms) : {};
  const marks = markers(view);
  const body = html`${done && html`<p class="notice done" id="done">${done}</p>`}${header(ctx, view, deployment, rootId)}
${diagramBlock(diagram)}${diagram.xml === null && model && elementStates(model, marks)}
<p class="legend"><span class="mark-active">waiting / active</span> <span class="mark-completed">completed</span> <span class="mark-taken">path taken</span> <span class="mark-incident">incident</span></p>
${incidents(ctx, view)}${repairSection(ctx, view, model)}${view.userTasks.length > 0 && html`<section data-section="tasks" id="tasks"><h2>User tasks</h2>${view.userTasks.map((task) => taskArticle(ctx, view, task, taskForms))}</section>`}${subscriptions(ctx, view)}${adHoc(ctx, view)}
${instanceDetails(ctx, view, called, await activationHistory(engine, id))}`;
  return layout(ctx, {
    title: `${view.processId} ${view.id.slice(0, 8)}`,
    live: `instance:${view.id}`,
    body,
    data: { kind: 'instance', xml: diagram.xml, markers: marks, forms: taskForms },
    forms: Object.keys(taskForms).length > 0,
  });
}

function header(
  ctx: PageContext,
  view: InstanceView,
  deployment: Deployment | undefined,
  rootId: string | undefined,
): Html {
  const process = deployment
    ? html`<a href="${processHref(ctx, view.definitionId, view.version)}">${view.processId}</a>`
    : html`${view.processId}`;
  const cancel =
    view.status === 'running' && view.parentId === null
      ? actionForm(
          ctx,
          view.id,
          'cancel',
          'Cancel instance',
          html``,
          'danger',
          'Cancel this instance and every instance it called?',
        )
      : null;
  return html`<h1>${view.processId} <span class="sub"><code>${view.id}</code></span></h1>
<dl class="facts" data-section="facts">
<dt>Status</dt><dd id="instance-status">${status(view.status)}</dd>
<dt>Process</dt><dd>${process} · ${view.definitionId} version ${view.version}</dd>
${view.businessKey !== null && html`<dt>Business key</dt><dd>${view.businessKey}</dd>`}
<dt>Started</dt><dd>${time(view.startedAt)}</dd>${view.endedAt !== null && html`<dt>Ended</dt><dd>${time(view.endedAt)}</dd>`}
${view.parentId !== null && html`<dt>Called by</dt><dd><a href="${instanceHref(ctx, view.parentId)}"><code>${view.parentId}</code></a> at ${view.callNodeId}</dd>`}
${rootId !== undefined && html`<dt>Call tree</dt><dd><a id="call-tree" href="${ctx.base}/instances?root=${encodeURIComponent(rootId)}">the whole tree</a></dd>`}
<dt>Checkpoint</dt><dd>seq ${view.seq}</dd></dl>
${cancel}`;
}

function incidents(ctx: PageContext, view: InstanceView): Html | null {
  if (view.incidents.length === 0) return null;
  return html`<section data-section="incidents" id="incidents"><h2>Incidents</h2>
<table class="grid"><thead><tr><th>Element</th><th>Kind</th><th>Message</th><th>Raised</th><th></th></tr></thead><tbody>
${view.incidents.map(
  (
    incident,
  ) => html`<tr data-incident="${incident.id}"><td>${incident.nodeId}</td><td>${incident.kind}</td><td class="message">${incident.message}</td><td>${time(incident.raisedAt)}</td>
<td>${actionForm(ctx, view.id, 'retry', 'Retry', html`<input type="hidden" name="incident" value="${incident.id}">`)}</td></tr>`,
)}</tbody></table></section>`;
}

function subscriptions(ctx: PageContext, view: InstanceView): Html | null {
  if (view.subscriptions.length === 0) return null;
  return html`<section data-section="subscriptions" id="subscriptions"><h2>Waiting for</h2>
<table class="grid"><thead><tr><th>Element</th><th>Kind</th><th>Name</th><th>Correlation key</th><th></th></tr></thead><tbody>
${view.subscriptions.map((s) => {
  const action = s.kind === 'message' ? 'correlate' : 'signal';
  const fields = html`<input type="hidden" name="name" value="${s.name}">${s.correlationKey !== null && html`<input type="hidden" name="correlationKey" value="${s.correlationKey}">`}<label>Variables <input name="variables" value="{}" spellcheck="false"></label>`;
  return html`<tr data-subscription="${s.elementId}"><td>${s.elementId}</td><td>${s.kind}</td><td>${s.name}</td><td>${s.correlationKey ?? ''}</td>
<td>${actionForm(ctx, view.id, action, s.kind === 'message' ? 'Correlate message' : 'Broadcast signal', fields)}</td></tr>`;
})}</tbody></table></section>`;
}

function adHoc(ctx: PageContext, view: InstanceView): Html | null {
  if (view.adHocSubProcesses.length === 0) return null;
  return html`<section data-section="ad-hoc" id="ad-hoc"><h2>Ad-hoc sub-processes</h2>${view.adHocSubProcesses.map(
    (a) => html`<article data-ad-hoc="${a.id}"><h3>${a.elementId}</h3>
<p>Running: ${a.active.length === 0 ? 'nothing' : a.active.join(', ')} · activations ${a.activations}${a.done && ' · completion condition met'}</p>
${
  a.done
    ? null
    : actionForm(
        ctx,
        view.id,
        'activate',
        'Activate',
        html`<input type="hidden" name="adHoc" value="${a.id}">${a.activatable.map(
          (e) =>
            html`<label class="check"><input type="checkbox" name="element" value="${e.elementId}"> ${e.elementName ?? e.elementId}</label>`,
        )}`,
      )
}</article>`,
  )}</section>`;
}

/** Where the instance stands, element by element: what the diagram would mark, when there is no diagram. */
function elementStates(model: ProcessModel, marks: Markers): Html {
  const state = (id: string): string =>
    [
      marks.incidents.includes(id) && 'incident',
      marks.active.includes(id) && 'active',
      marks.completed.includes(id) && 'completed',
    ]
      .filter(Boolean)
      .join(', ');
  return html`<table class="grid" id="elements"><thead><tr><th>Element</th><th>Type</th><th>State</th></tr></thead>
<tbody>${elementRows(model, (id) => html`<td>${state(id)}</td>`)}</tbody></table>`;
}
