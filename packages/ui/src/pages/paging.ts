/**
 * The paging of the lists read from the search projection (tasks, incidents): a page of `PAGE_SIZE` from `?from=`,
 * and the link to the next one.
 *
 * @module
 */
import { UiError, UiErrorCode } from '../errors.js';
import { type Html, html } from '../html.js';
import type { PageContext } from './layout.js';

export const PAGE_SIZE = 50;

/** Where the page starts (`?from=`): 0 when absent. @throws UiError naming a value that is no whole number */
export function pageStart(params: URLSearchParams): number {
  const text = params.get('from');
  if (!text) return 0;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UiError(UiErrorCode.BadRequest, `from must be a whole number, 0 or more, got "${text}"`);
  }
  return value;
}

/** The link to the page after this one of `total`, its filters kept; none on the last page. */
export function morePager(
  ctx: PageContext,
  path: string,
  params: URLSearchParams,
  from: number,
  total: number,
): Html | null {
  if (from + PAGE_SIZE >= total) return null;
  const next = new URLSearchParams(params);
  next.set('from', String(from + PAGE_SIZE));
  return html`<p class="pager"><a id="more" href="${ctx.base}/${path}?${next.toString()}">More →</a></p>`;
}
