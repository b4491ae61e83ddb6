/**
 * `/batches/:key`: a batch operation's progress — its state and counts, and each item that failed with the engine's
 * reason — read from the store, refreshed every second while it runs.
 *
 * @module
 */
import type { BatchList } from '@thresher/rest';
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import { dateText, layout, type PageContext } from './layout.js';

export async function batchPage(ctx: PageContext, batches: BatchList | undefined, key: string): Promise<Html> {
  const read = batches === undefined ? undefined : await batches.batch(key);
  if (read === undefined) throw new UiError(UiErrorCode.NotFound, `no batch operation ${key} in this store`);
  const { batch, items } = read;
  const running = batch.state === 'CREATED' || batch.state === 'ACTIVE';
  const done = batch.operationsCompletedCount + batch.operationsFailedCount;
  const failed = items.filter((item) => item.state === 'FAILED');
  return layout(ctx, {
    title: `Batch ${key}`,
    live: 'none',
    ...(running ? { refreshSeconds: 1 } : {}),
    body: html`<h1>Batch operation <span class="sub">${batch.batchOperationType} ${key}</span></h1>
<dl class="facts" id="batch" data-state="${batch.state}"><dt>State</dt><dd>${batch.state}</dd>
<dt>Done</dt><dd><progress max="${batch.operationsTotalCount}" value="${done}"></progress> ${done} of ${batch.operationsTotalCount}</dd>
<dt>Completed</dt><dd>${batch.operationsCompletedCount}</dd><dt>Failed</dt><dd>${batch.operationsFailedCount}</dd>
<dt>Started</dt><dd>${dateText(batch.startDate)}</dd>${batch.endDate !== null && html`<dt>Ended</dt><dd>${dateText(batch.endDate)}</dd>`}</dl>
${failed.length > 0 && html`<h2>Failed</h2><ul id="batch-failures">${failed.map((item) => html`<li><code>${item.processInstanceKey}</code>: ${item.errorMessage ?? ''}</li>`)}</ul>`}`,
  });
}
