// Who is acting and where: set by the auth middleware (SPEC.md 5.1.3), read by unit- and
// tenant-bound entities to filter and stamp, and by resources for their own checks.
export interface Scope {
  readonly userId: number | null;
  readonly unitId: number | null;
  readonly tenantId: number | null;
}

export const NO_SCOPE: Scope = Object.freeze({ userId: null, unitId: null, tenantId: null });
