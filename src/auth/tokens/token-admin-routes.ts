// The API behind the token-issuing admin screen (SPEC.md 5.1.6-7), session mode, admin users
// only: the grantable abilities, the tokens (never their secret), issue (the plain token shown
// once) and revoke.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../../database/database.js';
import { errors } from '../../errors.js';
import type { Middleware } from '../../kernel/middleware.js';
import { idOf } from '../../model/casts.js';
import { createToken, listTokens, revokeToken } from './token-service.js';

export interface TokenAdminOptions {
  readonly system: Database;
  readonly grantable: readonly string[];
  /** The `svc.auth` middleware. */
  readonly authenticated: Middleware;
}

function requireAdmin(request: FastifyRequest): void {
  if (request.svc?.user.admin !== 'Y') throw errors.unauthorized();
}

export function registerTokenAdminRoutes(app: FastifyInstance, options: TokenAdminOptions): void {
  const { system, grantable } = options;
  const preHandler = [
    options.authenticated,
    async (request: FastifyRequest) => requireAdmin(request),
  ];

  app.get('/app/tokens-api/abilities', { preHandler }, async () => ({ data: grantable }));

  app.get('/app/tokens-api', { preHandler }, async () => {
    const tokens = await listTokens(system);
    const users = await system.db
      .selectFrom('users')
      .select(['id', 'login', 'name'])
      .where('id', 'in', [0, ...tokens.map((t) => t.user_id)])
      .execute();
    const units = await system.db
      .selectFrom('units')
      .select(['id', 'name'])
      .where('id', 'in', [0, ...tokens.map((t) => t.unit_id)])
      .execute();
    const byId = <T extends { id: unknown }>(rows: T[]) =>
      new Map(rows.map((r) => [Number(r.id), r]));
    const userOf = byId(users);
    const unitOf = byId(units);
    return {
      data: tokens.map((t) => ({
        ...t,
        user: userOf.get(t.user_id) ?? null,
        unit: unitOf.get(t.unit_id) ?? null,
      })),
    };
  });

  app.post('/app/tokens-api', { preHandler }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const bag: Record<string, string[]> = {};
    const userId = idOf(body.user_id);
    const unitId = idOf(body.unit_id);
    if (userId === null) bag.user_id = ['The user id field must be an integer.'];
    if (unitId === null) bag.unit_id = ['The unit id field must be an integer.'];
    if (typeof body.name !== 'string') bag.name = ['The name field is required.'];
    const abilities = body.abilities ?? [];
    if (!Array.isArray(abilities) || abilities.some((a) => typeof a !== 'string'))
      bag.abilities = ['The abilities field must be an array of ability names.'];
    let expiresAt: Date | null = null;
    if (body.expires_at != null) {
      expiresAt = typeof body.expires_at === 'string' ? new Date(body.expires_at) : new Date(NaN);
      if (Number.isNaN(expiresAt.getTime()))
        bag.expires_at = ['The expires at field must be a valid date.'];
    }
    if (Object.keys(bag).length > 0) throw errors.validation(bag);
    const issued = await createToken(system, grantable, {
      userId: userId ?? 0,
      unitId: unitId ?? 0,
      name: String(body.name),
      abilities: abilities as string[],
      expiresAt,
    });
    return reply.code(201).send({ token: issued.token, data: issued.record });
  });

  app.delete('/app/tokens-api/:token', { preHandler }, async (request) => {
    const id = idOf((request.params as Record<string, string>).token);
    const record = id === null ? null : await revokeToken(system, id);
    if (!record) throw errors.resourceNotFound();
    return { message: 'Token revoked.', data: record };
  });
}
