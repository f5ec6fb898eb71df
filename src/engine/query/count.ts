// count (issue 21): how a list computes meta.total. `exact` counts every matching row (SPEC.md
// 4.2's answer, the default), `estimated` counts exactly up to a threshold and above it takes the
// engine's estimate, `none` counts nothing and answers meta.has_more instead. Sent as the `count`
// parameter or as `Prefer: count=<strategy>` (RFC 7240); the parameter wins. A value that is not
// a strategy falls back to the resource's default, as SPEC.md 8 and DESIGN.md 3.5 treat a bad
// per_page or direction (and as RFC 7240 treats a preference a server does not know).
import type { Input } from './input.js';

export type CountStrategy = 'exact' | 'estimated' | 'none';
export const COUNT_STRATEGIES: readonly CountStrategy[] = ['exact', 'estimated', 'none'];

export interface Count {
  readonly strategy: CountStrategy;
  /** The client named a strategy (parameter or Prefer): the answer carries the keyset meta. */
  readonly requested: boolean;
  /** `count=<strategy>` for Preference-Applied when the Prefer header's strategy was applied. */
  readonly preferenceApplied: string | null;
}

const strategyOf = (value: unknown): CountStrategy | null =>
  typeof value === 'string' && (COUNT_STRATEGIES as readonly string[]).includes(value.trim())
    ? (value.trim() as CountStrategy)
    : null;

/** The `count` preference of a Prefer header (`Prefer: return=minimal, count=estimated`). */
export function preferredCount(prefer: string | undefined): CountStrategy | null {
  if (!prefer) return null;
  for (const preference of prefer.split(',')) {
    // A preference is `token[=value]` then optional `; parameter`s, which count takes none of.
    const [token = '', value = ''] = (preference.split(';')[0] ?? '').split('=');
    if (token.trim().toLowerCase() === 'count') return strategyOf(value.replace(/"/g, ''));
  }
  return null;
}

export function parseCount(
  input: Input,
  prefer: string | undefined,
  fallback: CountStrategy,
): Count {
  const fromParameter = strategyOf(input.count);
  const fromPrefer = preferredCount(prefer);
  const strategy = fromParameter ?? fromPrefer ?? fallback;
  return {
    strategy,
    requested: input.count !== undefined || fromPrefer !== null,
    preferenceApplied: fromPrefer !== null && fromPrefer === strategy ? `count=${strategy}` : null,
  };
}
