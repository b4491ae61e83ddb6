/**
 * Collects what the compiler finds wrong (issues, which refuse the model) and what it merely notes
 * (warnings), each naming the element and, where the XML shows it, the line.
 *
 * @module
 */
import type { ModelIssue } from '../common/errors.js';
import { idOf, type ModdleElement } from './moddle.js';
import type { ModelWarning } from './types.js';

const ID_ATTRIBUTE = /\sid\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const EXTENSIONS_OPEN = /<(?:[\w.-]+:)?extensionElements[\s>]/g;
const EXTENSIONS_CLOSE = /<\/(?:[\w.-]+:)?extensionElements\s*>/;
const TAG_WITH_ID = /<[\w.:-]+\s[^<>]*?\bid\s*=\s*(?:"([^"]*)"|'([^']*)')[^<>]*>/g;

/** Maps element ids to the 1-based line of their `id="…"` attribute in the XML. */
export class LineIndex {
  private lines: Map<string, number> | undefined;
  private lineStarts: number[] | undefined;

  constructor(private readonly xml: string) {}

  /** The line of the element with this id, if the XML shows one. */
  lineOf(id: string | null | undefined): number | undefined {
    if (!id) return undefined;
    this.lines ??= this.indexIds();
    return this.lines.get(id);
  }

  /** The offset in the XML of a 0-based line and column, as bpmn-moddle reports them. */
  offsetOf(line: number, column: number): number {
    this.lineStarts ??= this.indexLines();
    const start = this.lineStarts[line];
    return start === undefined ? this.xml.length : start + column;
  }

  /** The text of the XML from an offset, at most `length` characters. */
  slice(offset: number, length: number): string {
    return this.xml.slice(offset, offset + length);
  }

  /**
   * When `offset` lies inside an `extensionElements` element: the id of the nearest element with an id
   * that opens before it (the element the extensions belong to), null when there is none.
   */
  extensionHolderAt(offset: number): { holderId: string | null } | undefined {
    const before = this.xml.slice(0, offset);
    let open = -1;
    for (const match of before.matchAll(EXTENSIONS_OPEN)) open = match.index;
    if (open < 0 || EXTENSIONS_CLOSE.test(before.slice(open))) return undefined;
    let holderId: string | null = null;
    for (const match of before.slice(Math.max(0, open - 4096), open).matchAll(TAG_WITH_ID)) {
      holderId = match[1] ?? match[2] ?? null;
    }
    return { holderId };
  }

  /**
   * The line of the first `<…localName …>` start tag that has no id and carries every attribute given,
   * for naming an element that has no id to name it by.
   */
  lineOfTagWithoutId(localName: string, attributes: Readonly<Record<string, string>>): number | undefined {
    const tags = new RegExp(`<(?:[\\w.-]+:)?${localName}\\b([^>]*)>`, 'g');
    for (const match of this.xml.matchAll(tags)) {
      const text = match[1] ?? '';
      if (/\sid\s*=/.test(text)) continue;
      const all = Object.entries(attributes).every(([name, value]) => text.includes(`${name}="${value}"`));
      if (all) return this.lineAt(match.index);
    }
    return undefined;
  }

  /**
   * The text of `attribute` on the first `<…localName …>` start tag after the start tag of the element
   * with id `ownerId`, as written (bpmn-moddle hands over numbers already coerced), or undefined.
   */
  attributeAfter(ownerId: string, localName: string, attribute: string): string | undefined {
    const owner = new RegExp(`\\sid\\s*=\\s*(?:"${escapeRegExp(ownerId)}"|'${escapeRegExp(ownerId)}')`).exec(this.xml);
    if (!owner) return undefined;
    const tag = new RegExp(`<(?:[\\w.-]+:)?${localName}\\b([^>]*)>`, 'g');
    tag.lastIndex = owner.index;
    const text = tag.exec(this.xml)?.[1];
    const value = text && new RegExp(`\\s${attribute}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(text);
    return value ? (value[1] ?? value[2]) : undefined;
  }

  /** The 1-based line of an offset in the XML. */
  lineAt(offset: number): number {
    this.lineStarts ??= this.indexLines();
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((this.lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  private indexLines(): number[] {
    const starts = [0];
    for (let index = this.xml.indexOf('\n'); index >= 0; index = this.xml.indexOf('\n', index + 1)) {
      starts.push(index + 1);
    }
    return starts;
  }

  private indexIds(): Map<string, number> {
    const lines = new Map<string, number>();
    this.lineStarts ??= this.indexLines();
    const starts = this.lineStarts;
    let line = 0;
    for (const match of this.xml.matchAll(ID_ATTRIBUTE)) {
      const id = match[1] ?? match[2];
      if (id === undefined || lines.has(id)) continue;
      while (line + 1 < starts.length && (starts[line + 1] ?? Number.POSITIVE_INFINITY) <= match.index) line += 1;
      lines.set(id, line + 1);
    }
    return lines;
  }
}

/** Accumulates issues and warnings; the compiler throws one ModelError with all issues at the end. */
export class IssueCollector {
  readonly issues: ModelIssue[] = [];
  readonly warnings: ModelWarning[] = [];
  private readonly marks = new Map<string, number>();

  constructor(readonly lines: LineIndex) {}

  /** Records a problem with a moddle element (named by its id and `$type`). */
  error(element: ModdleElement, message: string): void {
    this.errorAt(idOf(element) ?? null, element.$type, message);
  }

  /** Records a problem with an element named explicitly (or with no element at all). */
  errorAt(elementId: string | null, elementType: string | null, message: string, line?: number): void {
    const issue: ModelIssue = { elementId, elementType, message };
    const at = line ?? this.lines.lineOf(elementId);
    if (at !== undefined) issue.line = at;
    this.issues.push(issue);
  }

  /**
   * Remembers where the issues of the element with this id begin (the first mark wins), so an issue
   * about it found later — the runtime gate's — can take its place in document order (`errorsInPlace`).
   */
  mark(elementId: string): void {
    if (!this.marks.has(elementId)) this.marks.set(elementId, this.issues.length);
  }

  /**
   * Records issues about marked elements where their elements' issues begin (in front of them), each
   * unmarked one at the end, so a model's first issue stays that of its first element in document order.
   */
  errorsInPlace(found: readonly ModelIssue[]): void {
    const placed = found
      .map((issue, order) => ({ issue, order, at: this.marks.get(issue.elementId ?? '') ?? this.issues.length }))
      .sort((a, b) => a.at - b.at || a.order - b.order);
    // Last first: an insertion never moves a place still to fill; equal places keep their order.
    for (const { issue, at } of placed.reverse()) {
      const copy: ModelIssue = { ...issue };
      const line = this.lines.lineOf(issue.elementId);
      if (copy.line === undefined && line !== undefined) copy.line = line;
      this.issues.splice(at, 0, copy);
    }
  }

  /** Records something worth knowing that does not stop the model. */
  warn(elementId: string | null, message: string): void {
    this.warnings.push({ message, elementId });
  }

  /** A collector for one part of the model, sharing the line index; merge it back with `absorb`. */
  fork(): IssueCollector {
    return new IssueCollector(this.lines);
  }

  /** Takes over another collector's findings; with `asWarnings`, its issues become warnings. */
  absorb(other: IssueCollector, asWarnings?: (issue: ModelIssue) => string): void {
    if (asWarnings) {
      for (const issue of other.issues) this.warn(issue.elementId, asWarnings(issue));
    } else {
      this.issues.push(...other.issues);
    }
    this.warnings.push(...other.warnings);
  }
}

/** `text` with the characters a regular expression reads specially escaped. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
