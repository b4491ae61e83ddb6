// bpmn-moddle 10 ships element typings under `bpmn-moddle/types` but none for its entry point,
// so the one class the compiler uses is declared here.
declare module 'bpmn-moddle' {
  /** Reads BPMN 2.0 XML into moddle elements (see `moddle.ts` for the slice Thresher reads). */
  export class BpmnModdle {
    constructor(packages?: Record<string, unknown>, options?: Record<string, unknown>);
    fromXML(xml: string, options?: Record<string, unknown>): Promise<unknown>;
    toXML(element: unknown, options?: Record<string, unknown>): Promise<{ xml: string }>;
  }
}
