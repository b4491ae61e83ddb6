import type { Expression, IoMapping } from './types.js';

/** The fields every node shares, before flows fill `incoming` and `outgoing`. */
export interface NodeFrame {
  id: string;
  name: string | null;
  container: string;
  incoming: string[];
  outgoing: string[];
  io: IoMapping;
}

/** What a job-based element (service task, send task, message throw) gives its job. */
export interface JobDefinition {
  /** `zeebe:taskDefinition type`, else the element id. */
  taskType: string;
  /** `zeebe:taskDefinition retries`, else undefined (the engine's default applies). */
  retries: number | undefined;
  /** `zeebe:taskHeaders`, `{}` when none. */
  headers: Record<string, string>;
  /** A `zeebe:taskDefinition type` given as `=expr`: evaluated when the job is created (`taskType` holds its text). */
  typeExpression?: Expression;
  /** A `zeebe:taskDefinition retries` given as `=expr`: evaluated when the job is created. */
  retriesExpression?: Expression;
}
