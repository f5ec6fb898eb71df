// The running service as a command reaches it on its own machine, at HOST:PORT: a wildcard bind
// means loopback (used by `svc notify` and `svc driver:query`).
import type { Config, PusherEndpoint } from '../config/config.js';

export function localService(config: Config): PusherEndpoint {
  const host =
    config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '[::1]' : config.host;
  return {
    host: host.includes(':') && !host.startsWith('[') ? `[${host}]` : host,
    port: config.port,
    scheme: 'http',
  };
}
