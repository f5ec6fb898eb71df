// Named route middleware (SPEC.md 5: `svc.api[:abilities]`, `svc.auth`). Route declarations
// carry names; the registry turns each into a preHandler at boot, so a misspelt name or a
// malformed parameter fails at start, not on the first request.
import type { preHandlerAsyncHookHandler } from 'fastify';

export type Middleware = preHandlerAsyncHookHandler;
export type MiddlewareFactory = (parameters: readonly string[]) => Middleware;

export interface ParsedMiddleware {
  readonly name: string;
  readonly parameters: readonly string[];
}

/** `svc.api:a.read,b.write` -> name `svc.api`, parameters `[a.read, b.write]`. */
export function parseMiddleware(spec: string): ParsedMiddleware {
  const colon = spec.indexOf(':');
  if (colon === -1) return { name: spec, parameters: [] };
  const parameters = spec
    .slice(colon + 1)
    .split(',')
    .map((p) => p.trim());
  if (parameters.some((p) => p === ''))
    throw new Error(`Middleware "${spec}" has an empty parameter`);
  return { name: spec.slice(0, colon), parameters };
}

export class MiddlewareRegistry {
  private readonly factories = new Map<string, MiddlewareFactory>();

  define(name: string, factory: MiddlewareFactory): this {
    this.factories.set(name, factory);
    return this;
  }

  resolve(spec: string): Middleware {
    const { name, parameters } = parseMiddleware(spec);
    const factory = this.factories.get(name);
    if (!factory)
      throw new Error(
        `Unknown middleware "${name}" (known: ${[...this.factories.keys()].join(', ') || 'none'})`,
      );
    return factory(parameters);
  }
}
