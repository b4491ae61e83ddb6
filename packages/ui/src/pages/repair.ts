/**
 * An instance page's repair form (an operator's modification): move a token from an active element instance to an
 * element, add one (no source), or cancel an element instance (no target). Clicking an element of the diagram picks
 * it as the target. The engine decides what it refuses, and the page says so by name.
 *
 * @module
 */
import type { InstanceView } from '@thresher/engine';
import type { ProcessModel } from '@thresher/engine/model';
import { type Html, html } from '../html.js';
import { actionForm } from './actions.js';
import type { PageContext } from './layout.js';

/** Element types that cannot take a token by modification (as Zeebe refuses them). */
const NOT_TARGETS = new Set(['startEvent', 'boundaryEvent']);

export function repairSection(ctx: PageContext, view: InstanceView, model: ProcessModel | undefined): Html | null {
  const process = model?.processes.get(view.processId);
  if (view.status !== 'running' || process === undefined || ctx.readOnly) return null;
  const targets = [...process.nodes.values()].filter((node) => !NOT_TARGETS.has(node.type) && !node.forCompensation);
  const fields = html`<label>Move from <select name="terminate"><option value="">nothing (add a token)</option>${view.elementInstances.map(
    (one) => html`<option value="${one.id}">${one.elementId} (${one.id})</option>`,
  )}</select></label>
<label>to <select name="activate"><option value="">nowhere (cancel it)</option>${targets.map(
    (node) => html`<option value="${node.id}">${node.name ? `${node.name} (${node.id})` : node.id}</option>`,
  )}</select></label> `;
  return html`<section data-section="repair" id="repair"><h2>Repair</h2>
<p class="sub">Move a token, add one, or cancel an element instance, in one step (Operate's modification). Clicking an element of the diagram picks it as the target.</p>
${actionForm(ctx, view.id, 'modify', 'Apply', fields, 'repair', 'Modify this instance?')}</section>`;
}
