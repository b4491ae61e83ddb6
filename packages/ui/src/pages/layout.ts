/**
 * The frame every page shares: head with the view's assets, navigation, the page's data block for the client
 * script, and the address its live updates come from.
 *
 * @module
 */
import { type AssetName, assetPath } from '../assets.js';
import { type Html, html, jsonScript } from '../html.js';

/** What a page is rendered with, beside its own data. */
export interface PageContext {
  /** Where the view is mounted ('' at the root). */
  readonly base: string;
  readonly readOnly: boolean;
  /** The action token of an instance's page. */
  actionToken(instanceId: string): string;
}

export interface PageParts {
  title: string;
  /** What `/events` reports changes of: `instance:ID`, `definition:ID`, or `all`. */
  live: string;
  body: Html;
  /** Data for the client script (the diagram, its markers or heat). */
  data?: unknown;
  /** The page renders Camunda Forms. */
  forms?: boolean;
  /** The page draws a DMN model. */
  dmn?: boolean;
  /** Reload the page this often (seconds): a batch operation's progress while it runs. */
  refreshSeconds?: number;
}

export function layout(ctx: PageContext, parts: PageParts): Html {
  const css = (name: AssetName) => html`<link rel="stylesheet" href="${assetPath(ctx.base, name)}">`;
  const js = (name: AssetName) => html`<script src="${assetPath(ctx.base, name)}"></script>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="thresher-base" content="${ctx.base}">
<meta name="thresher-live" content="${parts.live}">
<title>${parts.title} · Thresher</title>${
    parts.refreshSeconds !== undefined &&
    html`
<meta http-equiv="refresh" content="${String(parts.refreshSeconds)}">`
  }
<link rel="icon" href="data:,">
${css('diagram-js.css')}${css('bpmn-js.css')}${parts.forms && css('form-js.css')}${
  parts.dmn &&
  html`${css('dmn-js-shared.css')}${css('dmn-js-drd.css')}${css('dmn-js-decision-table.css')}${css('dmn-js-literal-expression.css')}${css('dmn-font.css')}`
}${css('ui.css')}
</head>
<body>
<header class="top"><a class="brand" href="${ctx.base}/">Thresher</a>
<nav><a href="${ctx.base}/">Processes</a><a href="${ctx.base}/instances">Instances</a><a href="${ctx.base}/tasks">Tasks</a><a href="${ctx.base}/incidents">Incidents</a></nav>
<span class="live" id="live-state" title="live updates">●</span>${ctx.readOnly && html`<span class="badge">read-only</span>`}</header>
<main id="content">${parts.body}</main>
${parts.data === undefined ? '' : jsonScript('thresher-data', parts.data)}
${parts.dmn ? js('dmn-viewer.js') : js('bpmn-viewer.js')}${parts.forms && js('form-viewer.js')}${js('ui.js')}
</body>
</html>`;
}

/** A time as the view prints it: ISO 8601 in UTC, to the second. */
export function time(epochMs: number | null): string {
  return epochMs === null ? '' : new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A date the API gives as text (a task's due date, say), printed as `time` prints one; text that is no date, as it is. */
export function dateText(text: string | null | undefined): string {
  if (text === null || text === undefined) return '';
  const at = Date.parse(text);
  return Number.isNaN(at) ? text : time(at);
}

/** A variable's value as JSON text (a bigint as its digits, what JSON cannot hold by its kind). */
export function valueText(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v}`;
        if (v === undefined) return null;
        return v;
      }) ?? 'null'
    );
  } catch (error) {
    return `(cannot be shown: ${error instanceof Error ? error.message : String(error)})`;
  }
}

/** A status as a badge. */
export function status(value: string): Html {
  return html`<span class="status status-${value}">${value}</span>`;
}

/** The address of an instance's page. */
export function instanceHref(ctx: PageContext, id: string): string {
  return `${ctx.base}/instances/${encodeURIComponent(id)}`;
}

/** The address of a deployed version's page. */
export function processHref(ctx: PageContext, definitionId: string, version: number, processId?: string): string {
  const path = `${ctx.base}/processes/${encodeURIComponent(definitionId)}/${version}`;
  return processId === undefined ? path : `${path}?process=${encodeURIComponent(processId)}`;
}
