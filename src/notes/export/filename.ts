/**
 * `Content-Disposition` for a download named after the patient. `filename` is plain ASCII (accents
 * folded, anything else dashed) for old clients and because header values must be ASCII-safe;
 * `filename*` (RFC 6266/8187) carries the real name for clients that read it.
 */
export function attachmentDisposition(patientName: string, date: string, extension: string): string {
  const ascii = foldToAscii(patientName) || 'nota';
  const unicode = `${patientName.trim() || 'nota'}-${date}.${extension}`;
  return `attachment; filename="${ascii}-${date}.${extension}"; filename*=UTF-8''${encodeRfc8187(unicode)}`;
}

const MAX_NAME_LENGTH = 60;

function foldToAscii(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, '');
}

// encodeURIComponent leaves ' ( ) * ! unescaped; RFC 8187's attr-char does not allow ' ( ) *.
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}
