// The client's address as every part of svc sees it: the peer's, or with TRUST_PROXY the first
// untrusted address from the right of X-Forwarded-For. Fastify's request.ip and the WebSocket
// upgrades (which reach no Fastify route) both use this one rule (proxy-addr's).
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../config/config.js';

export type TrustFunction = (address: string, hop: number) => boolean;

/** TRUST_PROXY as proxy-addr (and Fastify's `trustProxy`) takes it; a hop count trusts hop < count. */
export function trustFunction(trust: TrustProxy): TrustFunction | false {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyAddr.compile([...trust]);
}

/** The client address of a raw request (an upgrade), as Fastify's request.ip would say it. */
export function clientAddressOf(trust: TrustProxy): (request: IncomingMessage) => string {
  const trusted = trustFunction(trust);
  if (trusted === false) return (request) => request.socket.remoteAddress ?? '';
  return (request) => proxyAddr(request, trusted);
}
