import type { FastifyReply, FastifyRequest } from 'fastify';

// The CRM session cookie, written by hand (no cookie plugin needed for one cookie). HttpOnly keeps
// it from scripts; SameSite=Strict keeps other sites from riding it (with JSON-only bodies, that is
// the CSRF defence); Secure whenever the service is reached over https.

export const SESSION_COOKIE = 'vetflow_session';
const PATH = '/flow/v1';

export function readSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === SESSION_COOKIE) {
      const value = part.slice(index + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function isHttps(request: FastifyRequest, publicBaseUrl: string): boolean {
  return request.protocol === 'https' || publicBaseUrl.startsWith('https:');
}

export function setSessionCookie(reply: FastifyReply, token: string, maxAgeSeconds: number, publicBaseUrl: string): void {
  const attributes = [`${SESSION_COOKIE}=${token}`, `Path=${PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (isHttps(reply.request, publicBaseUrl)) attributes.push('Secure');
  reply.header('set-cookie', attributes.join('; '));
}

export function clearSessionCookie(reply: FastifyReply, publicBaseUrl: string): void {
  const attributes = [`${SESSION_COOKIE}=`, `Path=${PATH}`, 'Max-Age=0', 'HttpOnly', 'SameSite=Strict'];
  if (isHttps(reply.request, publicBaseUrl)) attributes.push('Secure');
  reply.header('set-cookie', attributes.join('; '));
}
