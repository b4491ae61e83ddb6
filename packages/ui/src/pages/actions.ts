import { type Html, html } from '../html.js';
import type { PageContext } from './layout.js';

/**
 * A POST form for one action on an instance, carrying the page's action token; none in read-only mode.
 * `confirm` is asked by the client script before it is sent.
 */
export function actionForm(
  ctx: PageContext,
  instanceId: string,
  action: string,
  label: string,
  fields: Html,
  kind = '',
  confirm?: string,
): Html | null {
  if (ctx.readOnly) return null;
  return html`<form class="action ${kind}" method="post" action="${ctx.base}/actions/${action}" data-action="${action}"${
    confirm === undefined ? '' : html` data-confirm="${confirm}"`
  }>
<input type="hidden" name="_token" value="${ctx.actionToken(instanceId)}"><input type="hidden" name="instance" value="${instanceId}">
${fields}<button type="submit">${label}</button></form>`;
}
