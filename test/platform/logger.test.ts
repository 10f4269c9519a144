import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/platform/logger.ts';

describe('redactUrl', () => {
  it.each([
    ['/notes/v1/notes?api_key=vnk_0123456789abcdef0123456789abcdef&page=2', '/notes/v1/notes?api_key=[redacted]&page=2'],
    ['/x?page=1&token=abc&X-API-KEY=zzz', '/x?page=1&token=[redacted]&X-API-KEY=[redacted]'],
    ['/x?q=crm_live_AbC123xyz', '/x?q=[redacted]'],
    ['/x/vnk_0123456789abcdef0123456789abcdef', '/x/[redacted]'],
    ['/x?secret=whsec_abc%2B&password=hunter2#frag', '/x?secret=[redacted]&password=[redacted]#frag'],
  ])('censors %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves ordinary URLs alone', () => {
    for (const url of ['/notes/v1/notes?name=joao&page=2&limit=10', '/flow/v1/external/me', '/x?monkey=1&keys=2']) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});
