/**
 * The one way the view writes markup: the `html` tagged template escapes every value it is given, so a
 * variable or a model name holding `<script>` renders as text. Markup reaches a page only as an `Html`.
 *
 * @module
 */

const MARKUP = Symbol('markup');

/** Markup made by `html` (or `jsonScript`): safe to put in a page as it is. */
export interface Html {
  readonly [MARKUP]: string;
}

function markup(text: string): Html {
  return { [MARKUP]: text };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as it must stand in an element or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object' && MARKUP in value) return (value as Html)[MARKUP];
  return escapeHtml(String(value));
}

/**
 * Markup from a template: each value is escaped, unless it is `Html` already; an array is its items in
 * order; `null`, `undefined` and `false` are nothing (so `cond && html\`…\`` works).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) text += render(values[i]) + (strings[i + 1] ?? '');
  return markup(text);
}

/** The page's text. */
export function toText(page: Html): string {
  return page[MARKUP];
}

/**
 * Data for the client script, in a `<script type="application/json">` block: JSON with `<`, `>`, `&` and the
 * line separators U+2028/2029 written as escapes, so no value can end the block or start markup.
 */
export function jsonScript(id: string, data: unknown): Html {
  const json = JSON.stringify(data ?? null).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return markup(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
