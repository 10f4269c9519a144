import { isIPv4, isIPv6 } from 'node:net';

// The brute-force guard counts and blocks address groups, not single addresses: one IPv6 customer
// is routinely handed a whole /64 (2^64 addresses), so counting per address would let it try a
// fresh address for every guess. An IPv4 address is its own group; an IPv4-mapped IPv6 address
// (::ffff:198.51.100.7, what a dual-stack socket reports) is the IPv4 address it maps.

/** The group an address is counted in: the IPv4 address itself, or the IPv6 /64 as `2001:db8:1:2::/64`. */
export function addressGroup(address: string): string {
  const bare = address.split('%')[0]!; // a zone (fe80::1%eth0) names the interface, not the peer
  if (isIPv4(bare) || !isIPv6(bare)) return bare;
  const hextets = expandIPv6(bare);
  if (hextets.slice(0, 5).every((part) => part === 0) && hextets[5] === 0xffff) {
    return [hextets[6]! >> 8, hextets[6]! & 0xff, hextets[7]! >> 8, hextets[7]! & 0xff].join('.');
  }
  return `${hextets
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad converted). */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((hextet) => Number.parseInt(hextet, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
