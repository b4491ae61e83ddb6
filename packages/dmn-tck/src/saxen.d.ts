/** The part of saxen (a small SAX parser, no types of its own) that the DMN reader uses. */
declare module 'saxen' {
  export interface SaxContext {
    line: number;
    column: number;
  }
  type ContextGetter = () => SaxContext;
  export class Parser {
    constructor(options?: { proxy?: boolean });
    ns(namespaces: Record<string, string>): void;
    on(
      event: 'openTag',
      handler: (
        name: string,
        attrs: () => Record<string, string>,
        decode: (text: string) => string,
        selfClosing: boolean,
        context: ContextGetter,
      ) => void,
    ): void;
    on(
      event: 'closeTag',
      handler: (name: string, decode: (text: string) => string, selfClosing: boolean, context: ContextGetter) => void,
    ): void;
    on(event: 'text', handler: (value: string, decode: (text: string) => string, context: ContextGetter) => void): void;
    on(event: 'cdata', handler: (value: string, context: ContextGetter) => void): void;
    on(event: 'error' | 'warn', handler: (error: Error, context: ContextGetter) => void): void;
    parse(xml: string): void;
  }
}
