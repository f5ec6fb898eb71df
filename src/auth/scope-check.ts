// Re-validation of who is acting, shared by both modes (SPEC.md 7, 403 rows): the user, the unit
// and its company exist and are active, the unit belongs to the user, and in isolation mode the
// unit has a company. Returns the refusal reason, or null when the scope stands.
export interface ScopeFacts {
  readonly user: { readonly active?: unknown } | null;
  readonly unit: { readonly active: unknown; readonly companyId: number | null } | null;
  readonly company: { readonly active: unknown } | null;
  readonly linked: boolean;
}

export function scopeRefusal(facts: ScopeFacts, tenantIsolation: boolean): string | null {
  if (!facts.user) return 'The user no longer exists.';
  if (facts.user.active !== 'Y') return 'The user is inactive.';
  if (!facts.unit) return 'The unit no longer exists.';
  if (facts.unit.active !== 'Y') return 'The unit is inactive.';
  if (!facts.linked) return 'The unit does not belong to the user.';
  if (facts.unit.companyId !== null) {
    if (!facts.company) return 'The company no longer exists.';
    if (facts.company.active !== 'Y') return 'The company is inactive.';
  } else if (tenantIsolation) {
    return 'The unit has no company.';
  }
  return null;
}
