declare module 'bpmn-auto-layout' {
  /** The BPMN XML with diagram interchange for its (first) process laid out. */
  export function layoutProcess(xml: string): Promise<string>;
}
