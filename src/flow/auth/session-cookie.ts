import type { FastifyReply, FastifyRequest } from 'fastify';

// The CRM session cookie, written by hand (no cookie plugin needed for one cookie). HttpOnly keeps
// it from scripts; SameSite=Strict keeps other sites from riding it (with JSON-only bodies, that is
// the CSRF defence). Over https it is `__Host-vetflow_session`: the prefix makes the browser accept
// it only with Secure, Path=/ and no Domain, so neither a sibling subdomain nor a plain-http page
// can plant or overwrite a session cookie for us (cookie tossing, session fixation). Over plain
// http (development) it is `vetflow_session`, scoped to /flow/v1, and never read over https.

export const SESSION_COOKIE = 'vetflow_session';
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
const PLAIN_PATH = '/flow/v1';

/**
 * Over https: the request came over TLS (`request.protocol`, which honours X-Forwarded-Proto from
 * trusted proxies only, `TRUST_PROXY`) or the public URL browsers use is https.
 */
function isHttps(request: FastifyRequest, publicBaseUrl: string): boolean {
  return request.protocol === 'https' || publicBaseUrl.startsWith('https:');
}

export function readSessionCookie(request: FastifyRequest, publicBaseUrl: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const name = isHttps(request, publicBaseUrl) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, token: string, maxAgeSeconds: number, publicBaseUrl: string): void {
  reply.header('set-cookie', cookies(reply.request, publicBaseUrl, token, maxAgeSeconds));
}

export function clearSessionCookie(reply: FastifyReply, publicBaseUrl: string): void {
  reply.header('set-cookie', cookies(reply.request, publicBaseUrl, '', 0));
}

function cookies(request: FastifyRequest, publicBaseUrl: string, value: string, maxAgeSeconds: number): string[] {
  const common = [`Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (!isHttps(request, publicBaseUrl)) return [[`${SESSION_COOKIE}=${value}`, `Path=${PLAIN_PATH}`, ...common].join('; ')];
  return [
    [`${SECURE_SESSION_COOKIE}=${value}`, 'Path=/', ...common, 'Secure'].join('; '),
    // The unprefixed cookie an earlier version set over https is dropped, so it cannot linger.
    [`${SESSION_COOKIE}=`, `Path=${PLAIN_PATH}`, 'Max-Age=0', 'HttpOnly', 'SameSite=Strict', 'Secure'].join('; '),
  ];
}
