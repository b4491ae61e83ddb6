import { Problem, ProblemKind } from './problem.js';

/** The one tenant Thresher serves, named as Camunda names the default tenant. */
export const DEFAULT_TENANT = '<default>';

/** A request's tenant id: absent or the default one; any other is a 400, since Thresher has no tenants yet. */
export function readTenant(tenantId: string | undefined, where: string): typeof DEFAULT_TENANT {
  if (tenantId === undefined || tenantId === DEFAULT_TENANT) return DEFAULT_TENANT;
  throw new Problem(
    ProblemKind.InvalidArgument,
    `${where}: tenant "${tenantId}" is not served: Thresher has one tenant, ${DEFAULT_TENANT}, until it has tenants`,
  );
}
