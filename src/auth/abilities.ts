// Abilities (SPEC.md 5.1.4-6): `<domain>.<action>` names of a-z0-9_- segments. The grantable set
// is exactly the abilities that routes declare in `svc.api:<a>,<b>` middleware.
import { parseMiddleware } from '../kernel/middleware.js';

const ABILITY = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

export function isAbilityName(name: string): boolean {
  return ABILITY.test(name);
}

/** Checks the abilities of one `svc.api` middleware declaration, at boot. */
export function checkAbilities(abilities: readonly string[]): readonly string[] {
  for (const ability of abilities) {
    if (!isAbilityName(ability)) {
      throw new Error(
        `Invalid ability name "${ability}": use dot-separated segments of a-z, 0-9, _ and -`,
      );
    }
  }
  return abilities;
}

/** Every ability named by the given middleware declarations, sorted. */
export function declaredAbilities(middlewareSpecs: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const spec of middlewareSpecs) {
    const { name, parameters } = parseMiddleware(spec);
    if (name === 'svc.api') for (const ability of checkAbilities(parameters)) found.add(ability);
  }
  return [...found].sort();
}
