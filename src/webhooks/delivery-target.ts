// Where a delivery may go (DESIGN.md 3.10): only public unicast addresses, checked on the
// addresses the connection is made to (after DNS resolution, at every attempt, so a name that
// later resolves elsewhere is checked again), unless WEBHOOKS_ALLOW_PRIVATE=true. Loopback,
// private, link-local (the cloud metadata address 169.254.169.254), unique-local, CGNAT,
// multicast, reserved and unspecified addresses are refused.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export class TargetRefused extends Error {}

/** Whether a delivery may connect to `address` (an IP address's text). */
export function publicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

function refused(address: string): TargetRefused {
  return new TargetRefused(
    `The address ${address} is not public (loopback, private, link-local or reserved); set WEBHOOKS_ALLOW_PRIVATE=true to deliver there.`,
  );
}

/** Refuses a URL whose host is an IP address literal that is not public (no lookup is made). */
export function checkLiteralHost(hostname: string, allowPrivate: boolean): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && !publicAddress(host)) throw refused(host);
}

/** A DNS lookup for the connection that refuses every answer holding a non-public address. */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const bad = allowPrivate ? undefined : addresses.find((a) => !publicAddress(a.address));
      if (bad) return callback(refused(bad.address), '', 0);
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
