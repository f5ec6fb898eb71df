// The session endpoints of DESIGN.md 3.5: POST /app/login, POST /app/logout, GET /app/session,
// POST /app/session/unit. A failed login counts toward the per-IP limit and does not say which
// half of the credentials was wrong.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../../database/database.js';
import { errors } from '../../errors.js';
import type { Middleware } from '../../kernel/middleware.js';
import type { FailureLimiter } from '../failure-limiter.js';
import { USER_RECORD_COLUMNS, userRecord } from '../identity-query.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import type { SessionAuth } from './session-auth.js';

export interface SessionRouteOptions {
  readonly system: Database;
  readonly sessions: SessionAuth;
  readonly limiter: FailureLimiter;
  /** The `svc.auth` middleware. */
  readonly authenticated: Middleware;
}

const BAD_CREDENTIALS = 'These credentials do not match our records.';
// Compared against when the login is unknown, so both failures cost one scrypt run.
const decoy = hashPassword('decoy password never used');

function field(body: unknown, name: string): unknown {
  return body !== null && typeof body === 'object'
    ? (body as Record<string, unknown>)[name]
    : undefined;
}

/** `{user, unit, units, csrf_token}` of the request's session. */
function describe(
  request: FastifyRequest,
  sessions: SessionAuth,
  units: readonly UnitChoice[],
  unit?: UnitChoice,
) {
  const state = request.svc;
  return {
    user: state?.user ?? null,
    unit:
      unit ??
      (state?.scope.unitId != null
        ? { id: state.scope.unitId, name: state.unitName ?? null }
        : null),
    units,
    csrf_token: sessions.csrfToken(request),
  };
}

/** A unit the session can switch to, as the answers list them (the admin's unit switcher). */
interface UnitChoice {
  readonly id: number;
  readonly name: string;
}

export function registerSessionRoutes(app: FastifyInstance, options: SessionRouteOptions): void {
  const { system, sessions, limiter, authenticated } = options;
  const { db } = system;

  /** The user's units in link order, with what decides whether a session can act in them. */
  const unitsOf = (userId: unknown) =>
    db
      .selectFrom('user_units as l')
      .innerJoin('units as u', 'u.id', 'l.unit_id')
      .leftJoin('companies as c', 'c.id', 'u.company_id')
      .select([
        'u.id',
        'u.name',
        'u.active',
        'u.company_id',
        'c.id as found_company_id',
        'c.active as company_active',
      ])
      .where('l.user_id', '=', userId)
      .orderBy('l.id')
      .execute();
  const usable = (
    user: { active?: unknown } | null,
    unit: Awaited<ReturnType<typeof unitsOf>>[number],
  ) =>
    sessions.canActIn({
      user,
      unit: {
        active: unit.active,
        companyId: unit.company_id == null ? null : Number(unit.company_id),
      },
      company: unit.found_company_id == null ? null : { active: unit.company_active },
      linked: true,
    });
  /** The units a session of the user can act in, in link order: the unit switcher's choices. */
  const choices = (
    user: { active?: unknown } | null,
    units: Awaited<ReturnType<typeof unitsOf>>,
  ): UnitChoice[] =>
    units.filter((u) => usable(user, u)).map((u) => ({ id: Number(u.id), name: String(u.name) }));
  const choicesOf = async (request: FastifyRequest) =>
    choices(request.svc?.user ?? null, await unitsOf(request.svc?.scope.userId ?? -1));

  app.post('/app/login', async (request, reply) => {
    if (await limiter.blocked(request.ip)) throw errors.tooManyAttempts();
    const login = field(request.body, 'login');
    const password = field(request.body, 'password');
    const missing: Record<string, string[]> = {};
    if (typeof login !== 'string' || login.trim() === '')
      missing.login = ['The login field is required.'];
    if (typeof password !== 'string' || password === '')
      missing.password = ['The password field is required.'];
    if (Object.keys(missing).length > 0) throw errors.validation(missing);

    // PostgreSQL refuses a NUL character in a compared value: such a login names no user, on
    // every engine alike, and fails as a wrong login does.
    const user = String(login).includes('\u0000')
      ? undefined
      : await db
          .selectFrom('users')
          .select(['id', 'password_hash', 'active'])
          .where('login', '=', String(login))
          .executeTakeFirst();
    const matches = await verifyPassword(
      String(password),
      user ? String(user.password_hash) : await decoy,
    );
    // The session's unit: the user's first unit (lowest link id) that a session can act in.
    const units = user ? await unitsOf(user.id) : [];
    const unit = units.find((u) => usable(user ?? null, u));
    if (!user || !matches || user.active !== 'Y' || !unit) {
      await limiter.fail(request.ip);
      throw errors.validation({ login: [BAD_CREDENTIALS] });
    }
    const csrfToken = await sessions.start(request, reply, Number(user.id), Number(unit.id));
    const record = await db
      .selectFrom('users')
      .select([...USER_RECORD_COLUMNS])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    return {
      user: userRecord(record),
      unit: { id: Number(unit.id), name: unit.name },
      units: choices(user, units),
      csrf_token: csrfToken,
    };
  });

  app.post('/app/logout', { preHandler: authenticated }, async (request, reply) => {
    await sessions.end(request, reply);
    return { message: 'Logged out.' };
  });

  app.get('/app/session', { preHandler: authenticated }, async (request) =>
    describe(request, sessions, await choicesOf(request)),
  );

  app.post('/app/session/unit', { preHandler: authenticated }, async (request) => {
    const raw = field(request.body, 'unit_id');
    const unitId =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^\d+$/.test(raw)
          ? Number(raw)
          : null;
    if (unitId === null) throw errors.validation({ unit_id: ['The unit id field is required.'] });
    const units = await unitsOf(request.svc?.scope.userId ?? -1);
    const unit = units.find((u) => Number(u.id) === unitId);
    if (!unit) throw errors.unauthorized();
    // A unit the session could not act in (inactive, or its company inactive or gone) would be
    // accepted here and then refuse every request of the session, the switch back and logout
    // included; refuse it up front like a unit not of the user.
    if (!usable(request.svc?.user ?? null, unit)) throw errors.unauthorized();
    await sessions.switchUnit(request, unitId);
    return describe(request, sessions, choices(request.svc?.user ?? null, units), {
      id: Number(unit.id),
      name: String(unit.name),
    });
  });
}
