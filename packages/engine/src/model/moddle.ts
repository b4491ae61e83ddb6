/**
 * The moddle side of the compiler: one configured `BpmnModdle`, the small structural view of its
 * elements the compiler reads, and typed accessors over their loosely typed properties.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { BpmnModdle } from 'bpmn-moddle';

/** The slice of a moddle element the compiler reads; every other property is read through the accessors below. */
export interface ModdleElement {
  readonly $type: string;
  readonly $parent?: ModdleElement;
  $instanceOf(type: string): boolean;
  readonly [property: string]: unknown;
}

/** A warning bpmn-moddle collected while reading (lax mode turns most read errors into these). */
export interface ModdleWarning {
  message: string;
  element?: ModdleElement;
  property?: string;
  value?: unknown;
  error?: Error;
}

/** What `fromXML` resolves with. */
export interface ModdleDocument {
  rootElement: ModdleElement;
  warnings: ModdleWarning[];
}

/** The extension descriptors Thresher reads, besides BPMN itself. */
function loadDescriptors(): Record<string, unknown> {
  // createRequire keeps the JSON loading identical from `src` (vitest) and `dist` (tsc output):
  // `resources/` sits two levels above both `src/model/` and `dist/model/`.
  const require = createRequire(import.meta.url);
  return {
    zeebe: require('zeebe-bpmn-moddle/resources/zeebe.json') as unknown,
    thresher: require('../../resources/thresher.json') as unknown,
  };
}

let moddle: BpmnModdle | undefined;

function configured(): BpmnModdle {
  moddle ??= new BpmnModdle(loadDescriptors());
  return moddle;
}

/** Writes moddle elements read by `readXml` back as BPMN XML. */
export async function writeXml(rootElement: ModdleElement): Promise<string> {
  return (await configured().toXML(rootElement)).xml;
}

/**
 * Reads BPMN XML with the Zeebe and Thresher descriptors.
 *
 * @throws whatever bpmn-moddle throws on XML it cannot read at all (the compiler turns it into a ModelError).
 */
export async function readXml(xml: string): Promise<ModdleDocument> {
  moddle = configured();
  const result = (await moddle.fromXML(xml)) as { rootElement?: unknown; warnings?: unknown };
  if (!isElement(result.rootElement)) throw new Error('bpmn-moddle returned no root element');
  const warnings = Array.isArray(result.warnings) ? (result.warnings as ModdleWarning[]) : [];
  return { rootElement: result.rootElement, warnings };
}

/** Whether a value is a moddle element. */
export function isElement(value: unknown): value is ModdleElement {
  return typeof value === 'object' && value !== null && typeof (value as { $type?: unknown }).$type === 'string';
}

/** A string property, or undefined when absent or not a string. */
export function str(element: ModdleElement, property: string): string | undefined {
  const value = element[property];
  return typeof value === 'string' ? value : undefined;
}

/** A referenced or contained element, or undefined. */
export function child(element: ModdleElement, property: string): ModdleElement | undefined {
  const value = element[property];
  return isElement(value) ? value : undefined;
}

/** A many-valued property's elements, in document order (an absent property is empty). */
export function children(element: ModdleElement, property: string): ModdleElement[] {
  const value = element[property];
  return Array.isArray(value) ? value.filter(isElement) : [];
}

/** The `extensionElements` values of an element. */
export function extensions(element: ModdleElement): ModdleElement[] {
  const holder = child(element, 'extensionElements');
  return holder ? children(holder, 'values') : [];
}

/** The element's `id`, or undefined. */
export function idOf(element: ModdleElement): string | undefined {
  const id = str(element, 'id');
  return id === undefined || id === '' ? undefined : id;
}
