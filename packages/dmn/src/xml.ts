/**
 * Reading DMN XML into a small element tree. Every DMN version's model namespace (1.1 to 1.5) is read as
 * one: this is the single place where versions meet, so the rest of the package knows one DMN. Elements of
 * other namespaces (diagrams, vendors' extensions) keep their own prefix and are skipped by the reader.
 *
 * @module
 */
import { Parser } from 'saxen';
import { DmnModelError } from './errors.js';

/** The DMN model namespaces, oldest first, all read as `dmn:`. */
export const DMN_NAMESPACES = [
  'http://www.omg.org/spec/DMN/20151101/dmn.xsd', // 1.1
  'http://www.omg.org/spec/DMN/20180521/MODEL/', // 1.2
  'https://www.omg.org/spec/DMN/20191111/MODEL/', // 1.3
  'https://www.omg.org/spec/DMN/20211108/MODEL/', // 1.4
  'https://www.omg.org/spec/DMN/20230324/MODEL/', // 1.5
] as const;

/** Camunda 8's extension namespace (`zeebe:versionTag`). */
export const ZEEBE_NAMESPACE = 'http://camunda.org/schema/zeebe/1.0';

const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

const NAMESPACES: Record<string, string> = {
  ...Object.fromEntries(
    DMN_NAMESPACES.flatMap((ns) => [
      [ns, 'dmn'],
      [ns.replace(/^https:/, 'http:'), 'dmn'],
    ]),
  ),
  [ZEEBE_NAMESPACE]: 'zeebe',
  [XSI_NAMESPACE]: 'xsi',
};

/** One XML element: its prefixed name (`dmn:decision`), attributes, children, text, and line. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
  readonly line: number;
  /** The namespace declarations in scope (prefix → uri), for QNames in attribute values. */
  readonly prefixes: Readonly<Record<string, string>>;
}

/** Whether the XML's root element is a `definitions` in a DMN namespace (reads only the start). */
export function isDmn(xml: string): boolean {
  const root = /<(?:([\w.-]+):)?definitions\b([^>]*)>/.exec(xml.slice(0, 8192));
  if (!root) return false;
  const attribute = root[1] ? `xmlns:${root[1]}` : 'xmlns';
  const declared = new RegExp(`\\s${attribute.replace('.', '\\.')}\\s*=\\s*["']([^"']+)["']`).exec(root[2] ?? '');
  return declared !== null && NAMESPACES[declared[1]!] === 'dmn';
}

/**
 * Parses the XML into a tree, elements named with the prefixes `namespaces` maps their namespaces to (DMN's by
 * default: every version's model namespace as `dmn`); a document that is not well-formed is a model error
 * naming the line.
 */
export function readXml(xml: string, namespaces: Readonly<Record<string, string>> = NAMESPACES): XmlElement {
  const parser = new Parser();
  parser.ns(namespaces);
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let failure: { message: string; line: number } | undefined;
  parser.on('openTag', (name, attrs, decode, selfClosing, context) => {
    const raw = attrs();
    const parent = stack.at(-1);
    const prefixes: Record<string, string> = { ...(parent?.prefixes ?? {}) };
    const decoded: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw)) {
      const text = decode(value);
      if (key === 'xmlns') prefixes[''] = text;
      else if (key.startsWith('xmlns:')) prefixes[key.slice(6)] = text;
      else decoded[key] = text;
    }
    const element: XmlElement = { name, attrs: decoded, children: [], text: '', line: context().line + 1, prefixes };
    if (parent) parent.children.push(element);
    else root ??= element;
    if (!selfClosing) stack.push(element);
  });
  parser.on('closeTag', (_name, _decode, selfClosing) => {
    if (!selfClosing) stack.pop();
  });
  parser.on('text', (value, decode) => {
    const top = stack.at(-1);
    if (top) top.text += decode(value);
  });
  parser.on('cdata', (value) => {
    const top = stack.at(-1);
    if (top) top.text += value;
  });
  parser.on('error', (error, context) => {
    failure ??= { message: error.message, line: context().line + 1 };
  });
  parser.parse(xml);
  if (failure) throw new DmnModelError([{ message: `not well-formed XML: ${failure.message}`, line: failure.line }]);
  if (!root) throw new DmnModelError([{ message: 'no XML element found' }]);
  return root;
}

/** The element's children named `name` (`dmn:rule`). */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => child.name === name);
}

/** The element's first child named `name`. */
export function childNamed(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

/** The text of the child named `name` (`dmn:text`), or undefined when there is none. */
export function childText(element: XmlElement, name: string): string | undefined {
  return childNamed(element, name)?.text;
}
