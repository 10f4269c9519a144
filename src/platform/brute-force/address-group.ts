import { isIPv4, isIPv6 } from 'node:net';
import { ipv6Groups, mappedIpv4Of } from '../ipv6.ts';

// The brute-force guard counts and blocks address groups, not single addresses: one IPv6 customer
// is routinely handed a whole /64 (2^64 addresses), so counting per address would let it try a
// fresh address for every guess. An IPv4 address is its own group; an IPv4-mapped IPv6 address
// (::ffff:198.51.100.7, what a dual-stack socket reports) is the IPv4 address it maps.

/** The group an address is counted in: the IPv4 address itself, or the IPv6 /64 as `2001:db8:1:2::/64`. */
export function addressGroup(address: string): string {
  const bare = address.split('%')[0]!; // a zone (fe80::1%eth0) names the interface, not the peer
  if (isIPv4(bare) || !isIPv6(bare)) return bare;
  const groups = ipv6Groups(bare)!;
  return (
    mappedIpv4Of(groups) ??
    `${groups
      .slice(0, 4)
      .map((part) => part.toString(16))
      .join(':')}::/64`
  );
}
