/**
 * A DMN model as read from its XML, before anything is compiled: the DRG elements and their boxed
 * expressions, each with the id and line a problem names.
 *
 * @module
 */

/** Where an element is, for the issues that name it. */
export interface Place {
  readonly id: string;
  readonly type: string;
  readonly line: number;
}

/** A reference to a DRG element: in this model (`namespace` null) or in an imported one. */
export interface Ref {
  readonly namespace: string | null;
  readonly id: string;
}

export type Expr =
  | (Place & { kind: 'literalExpression'; typeRef?: string; text: string })
  | (Place & { kind: 'decisionTable'; typeRef?: string; table: TableDef })
  | (Place & { kind: 'context'; typeRef?: string; entries: ContextEntryDef[] })
  | (Place & { kind: 'relation'; typeRef?: string; columns: string[]; rows: Expr[][] })
  | (Place & { kind: 'list'; typeRef?: string; items: Expr[] })
  | (Place & { kind: 'invocation'; typeRef?: string; callee: Expr; bindings: BindingDef[] })
  | (Place & { kind: 'functionDefinition'; typeRef?: string; fn: FunctionDef })
  | (Place & { kind: 'conditional'; typeRef?: string; condition: Expr; whenTrue: Expr; whenFalse: Expr })
  | (Place & { kind: 'for' | 'some' | 'every'; typeRef?: string; variable: string; in: Expr; body: Expr })
  | (Place & { kind: 'filter'; typeRef?: string; in: Expr; match: Expr });

export interface ContextEntryDef {
  readonly variable: string | null;
  readonly typeRef?: string;
  readonly expr: Expr;
}

export interface BindingDef {
  readonly name: string;
  readonly expr: Expr | null;
}

export interface FunctionDef {
  readonly kind: string;
  readonly params: readonly { name: string; typeRef?: string }[];
  readonly body: Expr | null;
}

export interface TableInputDef {
  readonly id: string;
  readonly label: string;
  readonly expression: string;
  readonly expressionId: string;
  readonly typeRef?: string;
  readonly inputValues?: string;
}

export interface TableOutputDef {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly typeRef?: string;
  readonly outputValues?: string;
  readonly defaultOutput?: { id: string; text: string };
}

export interface RuleDef {
  readonly id: string;
  readonly line: number;
  readonly inputEntries: readonly { id: string; text: string }[];
  readonly outputEntries: readonly { id: string; text: string }[];
}

export interface TableDef {
  readonly hitPolicy: string;
  readonly aggregation?: string;
  readonly inputs: readonly TableInputDef[];
  readonly outputs: readonly TableOutputDef[];
  readonly rules: readonly RuleDef[];
}

export interface ItemDef {
  readonly name: string;
  readonly typeRef?: string;
  readonly isCollection: boolean;
  readonly components: readonly ItemDef[];
  readonly allowedValues?: string;
  readonly typeConstraint?: string;
  readonly functionItem?: {
    readonly params: readonly { name: string; typeRef?: string }[];
    readonly outputTypeRef?: string;
  };
}

export interface DecisionDef extends Place {
  readonly name: string;
  readonly typeRef?: string;
  readonly versionTag?: string;
  readonly requiredDecisions: readonly Ref[];
  readonly requiredInputs: readonly Ref[];
  readonly requiredKnowledge: readonly Ref[];
  readonly expr: Expr | null;
}

export interface InputDataDef extends Place {
  readonly name: string;
  readonly typeRef?: string;
}

export interface BkmDef extends Place {
  readonly name: string;
  readonly typeRef?: string;
  readonly requiredKnowledge: readonly Ref[];
  readonly logic: FunctionDef | null;
}

export interface ServiceDef extends Place {
  readonly name: string;
  readonly outputDecisions: readonly Ref[];
  readonly encapsulatedDecisions: readonly Ref[];
  readonly inputDecisions: readonly Ref[];
  readonly inputData: readonly Ref[];
}

export interface ImportDef {
  readonly name: string;
  readonly namespace: string;
  readonly importType: string;
}

export interface DmnModel {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly imports: readonly ImportDef[];
  readonly itemDefinitions: readonly ItemDef[];
  readonly decisions: readonly DecisionDef[];
  readonly inputData: readonly InputDataDef[];
  readonly knowledgeModels: readonly BkmDef[];
  readonly services: readonly ServiceDef[];
}
