// The part of a pino logger that background failures (a push server, a Redis connection) are
// reported through: the modules that report them take this, not Fastify's logger.
export interface WarnLog {
  warn(details: object, message: string): void;
}
