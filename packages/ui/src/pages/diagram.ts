import type { ProcessModel } from '@thresher/engine/model';
import { type Html, html } from '../html.js';
import type { Diagram } from '../models.js';

/** Where the client draws the diagram, or why there is none (the element table below the diagram stays). */
export function diagramBlock(diagram: Diagram): Html {
  if (diagram.xml === null) {
    return html`<div class="notice" id="no-diagram">No diagram: ${diagram.why}. The elements are listed instead.</div>`;
  }
  return html`<div class="diagram" id="diagram" data-laid-out="${String(diagram.laidOut)}"></div>
${diagram.laidOut && html`<p class="note">This model has no diagram of its own; Thresher laid it out (bpmn-auto-layout), sub-processes collapsed.</p>`}`;
}

/** A row per element of every process of the model (nested ones too), in document order, with `cells` after its id and type. */
export function elementRows(model: ProcessModel, cells: (elementId: string) => Html): Html[] {
  const rows: Html[] = [];
  for (const process of model.processes.values()) {
    for (const node of process.nodes.values()) {
      rows.push(
        html`<tr data-element="${node.id}"><td>${node.name ?? node.id}${node.name !== null && html`<div class="sub">${node.id}</div>`}</td><td>${node.type}</td>${cells(node.id)}</tr>`,
      );
    }
  }
  return rows;
}
