import { AppError } from '../../platform/errors.ts';

/**
 * The check a creation of a capped resource (templates, webhook endpoints, API keys) makes after it
 * took the clinic's lock (`lockClinic`) and counted what the clinic holds, so that of two creations
 * at once only one can take the last place: 409 LIMIT_REACHED, `details: {limit, resource}`.
 */
export function refuseAtLimit(held: number, limit: number, resource: 'templates' | 'webhooks' | 'api_keys', message: string): void {
  if (held >= limit) throw new AppError('LIMIT_REACHED', message, { limit, resource });
}
