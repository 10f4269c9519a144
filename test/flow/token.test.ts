import { describe, expect, it } from 'vitest';
import { displayPrefix, generateToken, hashToken, isWellFormedToken } from '../../src/flow/keys/token.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('CRM tokens', () => {
  const tokens = Array.from({ length: 300 }, generateToken);

  it('are crm_live_ + 32 random base62 characters + a 6-character checksum', () => {
    for (const token of tokens) {
      expect(token).toMatch(/^crm_live_[0-9A-Za-z]{38}$/);
      expect(isWellFormedToken(token)).toBe(true);
    }
    expect(new Set(tokens.map((token) => token.slice(9, 41))).size).toBe(tokens.length);
    expect(displayPrefix(tokens[0]!)).toBe(tokens[0]!.slice(0, 12));
    expect(hashToken(tokens[0]!)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('catch every single mistyped character through the checksum', () => {
    for (const [n, token] of tokens.entries()) {
      const position = 9 + (n % 38);
      const original = token[position]!;
      const typo = BASE62[(BASE62.indexOf(original) + 1 + (n % 61)) % 62]!;
      const mistyped = token.slice(0, position) + typo + token.slice(position + 1);
      expect(isWellFormedToken(mistyped), mistyped).toBe(false);
    }
  });

  it('catch swapped neighbours', () => {
    const token = tokens.find((candidate) => candidate[20] !== candidate[21])!;
    const swapped = token.slice(0, 20) + token[21] + token[20] + token.slice(22);
    expect(isWellFormedToken(swapped)).toBe(false);
  });

  it('use every base62 character about evenly', () => {
    const counts = new Map<string, number>();
    for (const token of tokens) for (const char of token.slice(9, 41)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (tokens.length * 32) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.5);
  });
});
