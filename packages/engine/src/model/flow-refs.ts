/**
 * A model's flows listed on the nodes they join. BPMN lets a file leave a node's `incoming` and `outgoing` out — a
 * flow's `sourceRef` and `targetRef` say it all — but tools that read the XML (a diagram's layout) may draw no flow
 * a node does not list.
 *
 * @module
 */
import { children, isElement, type ModdleElement, readXml, writeXml } from './moddle.js';

/**
 * The BPMN XML with every sequence flow listed on its source (`outgoing`) and its target (`incoming`), in every
 * process and sub-process; what it already listed stays as it was.
 *
 * @throws whatever bpmn-moddle throws on XML it cannot read at all
 */
export async function withFlowRefs(xml: string): Promise<string> {
  const { rootElement } = await readXml(xml);
  for (const root of children(rootElement, 'rootElements')) link(root);
  return writeXml(rootElement);
}

function link(container: ModdleElement): void {
  for (const element of children(container, 'flowElements')) {
    if (!element.$instanceOf('bpmn:SequenceFlow')) {
      link(element);
      continue;
    }
    const { sourceRef, targetRef } = element;
    if (isElement(sourceRef)) listed(sourceRef, 'outgoing', element);
    if (isElement(targetRef)) listed(targetRef, 'incoming', element);
  }
}

function listed(node: ModdleElement, property: 'incoming' | 'outgoing', flow: ModdleElement): void {
  const list = (node as unknown as { get(name: string): ModdleElement[] }).get(property);
  if (!list.includes(flow)) list.push(flow);
}
