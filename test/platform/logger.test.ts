import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/platform/logger.ts';

describe('redactUrl', () => {
  it.each([
    ['/notes/v1/notes?api_key=vnk_0123456789abcdef0123456789abcdef&page=2', '/notes/v1/notes?api_key=[redacted]&page=2'],
    ['/x?page=1&token=abc&X-API-KEY=zzz', '/x?page=1&token=[redacted]&X-API-KEY=[redacted]'],
    ['/x?Api-Key=abc&access_token=def', '/x?Api-Key=[redacted]&access_token=[redacted]'],
    ['/x?q=crm_live_AbC123xyz', '/x?q=[redacted]'],
    ['/x/vnk_0123456789abcdef0123456789abcdef', '/x/[redacted]'],
    ['/x?secret=whsec_abc%2B&password=hunter2#frag', '/x?secret=[redacted]&password=[redacted]#frag'],
  ])('censors %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves paths, paging and filters alone', () => {
    for (const url of [
      '/notes/v1/notes?page=2&limit=10&transcription_status=completed',
      '/flow/v1/external/me',
      '/x?from=2026-01-01&days=3',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('censors query values that may be personal data (patient names, external ids, searches)', () => {
    expect(redactUrl('/notes/v1/notes?name=Thor%20Silva&page=2&external_id=PAC-1')).toBe(
      '/notes/v1/notes?name=[redacted]&page=2&external_id=[redacted]',
    );
    expect(redactUrl('/flow/v1/api/workspaces/w/contacts?q=11987654321&limit=5&monkey=1')).toBe(
      '/flow/v1/api/workspaces/w/contacts?q=[redacted]&limit=5&monkey=[redacted]',
    );
    // A bare value, or a "name" that is really a value, goes too.
    expect(redactUrl('/notes/v1/notes?Thor%20Silva&page=1&Ana%20Souza%20(11)%209999=x#top')).toBe(
      '/notes/v1/notes?[redacted]&page=1&[redacted]=[redacted]#top',
    );
  });
});
