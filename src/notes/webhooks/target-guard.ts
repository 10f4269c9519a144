import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { dottedIpv4, ipv6Groups, mappedIpv4Of } from '../../platform/ipv6.ts';

// SSRF guard: webhook targets are chosen by clinics, so a delivery must never reach the service's
// own network. The address checked is the address connected to (no second resolution).

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible (::a.b.c.d)
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT, ::ffff:0:a.b.c.d): reaches the IPv4 address through a translator
  ['64:ff9b::', 96], // NAT64, well-known prefix: an IPv4 address in disguise
  ['64:ff9b:1::', 48], // NAT64, local-use prefix (RFC 8215): the operator's own translator, to any IPv4
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: tunnels to an (obfuscated) IPv4 address
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/**
 * True for private, loopback, link-local, unspecified, multicast and reserved addresses (v4, v6),
 * and for every IPv6 form that carries an IPv4 address (RFC 6052 §2, RFC 4291 §2.5.5):
 * IPv4-compatible, IPv4-translated, both NAT64 prefixes and Teredo are refused whole (what they
 * reach depends on a translator or tunnel we cannot see); IPv4-mapped, 6to4 and ISATAP are judged
 * by the IPv4 address they carry as well.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4Of(address);
  if (embedded === null) return true; // not parseable as we read it: refuse rather than guess
  if (embedded && blocked.check(embedded, 'ipv4')) return true;
  // A mapped address is the IPv4 address itself; the other forms also route by their IPv6 prefix.
  if (embedded && isMapped(address)) return false;
  return blocked.check(address, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (`::ffff:a.b.c.d`, also in hex
 * groups), 6to4 (`2002:AABB:CCDD::/48` → `a.b.c.d`, reached through a 6to4 relay) or ISATAP
 * (interface id `0:5efe:a.b.c.d` or `200:5efe:a.b.c.d`, tunnelled to that IPv4 address). Undefined
 * when it carries none, null when it cannot be read.
 */
function embeddedIpv4Of(address: string): string | undefined | null {
  const groups = groupsOf(address);
  if (!groups) return null;
  const mapped = mappedIpv4Of(groups);
  if (mapped) return mapped;
  if (groups[0] === 0x2002) return dottedIpv4(groups[1], groups[2]);
  if ((groups[4] === 0 || groups[4] === 0x200) && groups[5] === 0x5efe) return dottedIpv4(groups[6], groups[7]);
  return undefined;
}

function isMapped(address: string): boolean {
  const groups = groupsOf(address);
  return groups !== undefined && mappedIpv4Of(groups) !== undefined;
}

const groupsOf = (address: string) => ipv6Groups(address.replace(/^\[|\]$/g, ''));

export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address to connect to; the Host header and TLS name stay the URL's host name. */
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/** The static part of the check, also used when an endpoint is registered: scheme and literal hosts. */
export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('not a valid URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new TargetRefusedError(allowPrivate ? 'the URL must be http or https' : 'the URL must be https');
  }
  if (url.username || url.password) throw new TargetRefusedError('the URL must not carry credentials');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new TargetRefusedError(`${host} is a private or reserved address`);
  } else if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    throw new TargetRefusedError(`${host} is not a public host name`);
  }
  return url;
}

/** Resolves once and refuses the target if any address is private (unless allowed). */
export async function resolveTarget(raw: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<ResolvedTarget> {
  const url = checkTargetUrl(raw, allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} did not resolve`);
  if (!allowPrivate) {
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused) throw new TargetRefusedError(`${host} resolves to ${refused.address}, a private or reserved address`);
  }
  const [chosen] = addresses;
  return { url, address: chosen?.address ?? '', family: chosen?.family === 6 ? 6 : 4 };
}
