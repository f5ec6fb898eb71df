// Who may use the driver: a request signed with REST_DRIVER_SECRET (request-signature.ts) whose
// nonce is new. Every refusal is a 401 that counts toward the per-IP failure limit of the
// bearer mode (DESIGN.md 3.6), and a blocked IP is answered 429 before its signature is read.
import type { FastifyRequest } from 'fastify';
import type { Clock, FailureLimiter } from '../auth/failure-limiter.js';
import { errors } from '../errors.js';
import type { NonceStore } from './nonce-store.js';
import { checkSignature } from './request-signature.js';

export interface RestDriverAuthOptions {
  readonly secret: string;
  readonly limiter: FailureLimiter;
  readonly nonces: NonceStore;
  readonly clock: Clock;
}

const EMPTY = Buffer.alloc(0);

export interface RestDriverAuth {
  /** onRequest: refuses a blocked IP before its body is even read. */
  refuseBlocked(request: FastifyRequest): Promise<void>;
  /** preHandler: checks the signature over the raw body; throws the catalog's 401. */
  verify(request: FastifyRequest): Promise<void>;
}

export function restDriverAuth(options: RestDriverAuthOptions): RestDriverAuth {
  const { secret, limiter, nonces, clock } = options;
  return {
    async refuseBlocked(request) {
      if (await limiter.blocked(request.ip)) throw errors.tooManyAttempts();
    },
    async verify(request) {
      const body = Buffer.isBuffer(request.body) ? request.body : EMPTY;
      // request.url is the target as sent: not decoded, not normalised.
      const check = checkSignature(
        secret,
        { method: request.method, target: request.url, body, headers: request.headers },
        clock(),
      );
      // The nonce is recorded only once the signature holds: unsigned requests cannot fill the store.
      let refusal = check.ok ? null : check.reason;
      if (check.ok && !(await nonces.claim(check.nonce, check.nonceExpiresAt)))
        refusal = 'The nonce was already used.';
      if (refusal === null) return;
      await limiter.fail(request.ip);
      throw errors.driverUnauthenticated(refusal);
    },
  };
}
