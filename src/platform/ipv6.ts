// Reading IPv6 addresses as their eight 16-bit groups, for the checks that look inside one: the
// brute-force guard's /64 groups and the SSRF guard's embedded IPv4 addresses.

/**
 * The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted quad converted, a
 * zone such as `%eth0` dropped, any case); undefined when the text is not one.
 */
export function ipv6Groups(address: string): number[] | undefined {
  let text = (address.split('%')[0] ?? '').toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  const fill = 8 - first.length - last.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
  const groups = [...first, ...Array<number>(fill).fill(0), ...last];
  return groups.some((group) => Number.isNaN(group)) ? undefined : groups;
}

/** Two groups as a dotted IPv4 address. */
export function dottedIpv4(high = 0, low = 0): string {
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is, or undefined. */
export function mappedIpv4Of(groups: readonly number[]): string | undefined {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff ? dottedIpv4(groups[6], groups[7]) : undefined;
}
