// Where a delivery may go (DESIGN.md 3.10): only public unicast addresses, checked on the
// addresses the connection is made to (after DNS resolution, at every attempt, so a name that
// later resolves elsewhere is checked again), unless WEBHOOKS_ALLOW_PRIVATE=true. Loopback,
// private, link-local (the cloud metadata address 169.254.169.254), unique-local, CGNAT,
// multicast, reserved and unspecified addresses are refused.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
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

/**
 * The address a delivery to `hostname` connects to, resolved now: the literal address itself,
 * or the first the lookup answers. Throws TargetRefused when it (or any other address the name
 * resolves to) is not public, unless `allowPrivate`.
 */
export async function checkedAddress(hostname: string, allowPrivate: boolean): Promise<string> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    if (!allowPrivate && !publicAddress(host)) throw refused(host);
    return host;
  }
  const addresses = await lookup(host, { all: true });
  const bad = allowPrivate ? undefined : addresses.find((a) => !publicAddress(a.address));
  if (bad) throw refused(bad.address);
  const [first] = addresses;
  if (!first) throw new Error(`${host} has no address`);
  return first.address;
}
