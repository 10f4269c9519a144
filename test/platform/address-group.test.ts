import { describe, expect, it } from 'vitest';
import { addressGroup } from '../../src/platform/brute-force/address-group.ts';

// The address group the brute-force guard counts (the guard itself: test/flow/brute-force.test.ts).
describe('addressGroup', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressGroup('198.51.100.7')).toBe('198.51.100.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const group = '2001:db8:1:2::/64';
    for (const address of ['2001:db8:1:2::1', '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2:0:0:0:0', '2001:db8:1:2::1%eth0']) {
      expect(addressGroup(address), address).toBe(group);
    }
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('2001:db8:1:3::1')).not.toBe(group);
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('64:ff9b::198.51.100.7')).toBe('64:ff9b:0:0::/64');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    expect(addressGroup('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressGroup('::FFFF:c633:6407')).toBe('198.51.100.7');
  });

  it('leaves anything that is not an address alone', () => {
    expect(addressGroup('')).toBe('');
    expect(addressGroup('not an address')).toBe('not an address');
  });
});
