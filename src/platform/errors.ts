// The documented error catalogue: every code the service answers with, and its HTTP status.
// Routes and services throw AppError(code, ...); http/error-handler.ts writes the flat body
// {error, message, code, details?, request_id} once for both APIs.

export const ERROR_STATUS = {
  // generic request errors
  MALFORMED_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_PARAMETER: 400,
  VALIDATION_ERROR: 422,
  ROUTE_NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMIT_EXCEEDED: 429,
  // a clinic already holds the most it may of something (templates, webhook endpoints, active
  // keys); details {limit, resource}
  LIMIT_REACHED: 409,
  TOO_MANY_FAILED_AUTHENTICATIONS: 429,
  TOO_MANY_CONCURRENT_LOGINS: 429,
  INTERNAL_ERROR: 500,
  NOT_READY: 503,
  SERVICE_UNAVAILABLE: 503,
  // authentication and tenancy
  INVALID_API_KEY: 401,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  INSUFFICIENT_PERMISSIONS: 403,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN_TENANT: 403,
  WORKSPACE_MISMATCH: 403,
  BILLING_INACTIVE: 403,
  // notes
  NOTE_NOT_FOUND: 404,
  // no note of the clinic carries that external_id (a patient exists through its notes), or, for its
  // record (notes/prontuario/), no completed one
  PATIENT_NOT_FOUND: 404,
  SECTION_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  INVALID_SECTION_ID: 400,
  INVALID_AUDIO_FORMAT: 400,
  AUDIO_TOO_LARGE: 413,
  AUDIO_DURATION_INVALID: 422,
  QUOTA_EXCEEDED: 403,
  NOTE_NOT_COMPLETED: 422,
  NOTE_NOT_FAILED: 422,
  NOTE_RETRY_LIMIT: 422,
  TEMPLATE_NOT_FOUND: 422,
  TEMPLATE_ID_NOT_FOUND: 404,
  TEMPLATE_EXISTS: 409,
  TEMPLATE_BUILTIN: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  // the clinical record (notes/record/, notes/recording/)
  NOTE_SIGNED: 409,
  PATIENT_ERASURE_IN_PROGRESS: 409,
  NOTE_NOT_SIGNED: 409,
  // the owner summary (notes/owner-summary/) and the clinic's CRM link it is sent through
  SUMMARY_NOT_FOUND: 404,
  SUMMARY_APPROVED: 409,
  SUMMARY_NOT_APPROVED: 409,
  SUMMARY_NOT_GROUNDED: 422,
  CRM_NOT_LINKED: 409,
  CRM_TOKEN_INVALID: 422,
  CRM_SCOPE_MISSING: 422,
  REVIEW_FLAGS_OPEN: 409,
  AUDIO_NOT_FOUND: 404,
  AUDIO_IN_PARTS: 409,
  RANGE_NOT_SATISFIABLE: 416,
  // live capture (notes/live/)
  PART_CONFLICT: 409,
  CAPTURE_CLOSED: 409,
  PARTS_MISSING: 409,
  PARTS_UNEXPECTED: 409,
  PART_NOT_FOUND: 404,
  // erasure and retention (notes/erasure/, notes/recording/audio-retention.ts)
  REASON_REQUIRED: 422,
  AUDIO_EXPIRED: 410,
  WEBHOOK_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  WEBHOOK_DISABLED: 422,
  WEBHOOK_KEY_MISSING: 503,
  // CRM
  WORKSPACE_NOT_FOUND: 404,
  INVALID_SCOPE: 400,
  EMAIL_TAKEN: 409,
  USER_NOT_FOUND: 404,
  CONTACT_NOT_FOUND: 404,
  // a message for a tutor the CRM does not know, without the name and phone to create the contact
  TUTOR_REQUIRED: 422,
  LEAD_NOT_FOUND: 404,
  DUPLICATE_PHONE: 409,
  DUPLICATE_EXTERNAL_ID: 409,
  EXTERNAL_ID_CONFLICT: 409,
  MISSING_IDENTIFIER: 400,
  INVALID_PHONE: 400,
  LEGACY_ID_NOT_ACCEPTED: 400,
  STAGE_NOT_FOUND: 404,
  CHAT_NOT_FOUND: 404,
  ACTIVE_LEAD_EXISTS: 409,
  CURSOR_EXPIRED: 410,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const ERROR_NAMES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  431: 'request_header_fields_too_large',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  500: 'internal_server_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

export function errorNameFor(status: number): string {
  return ERROR_NAMES[status] ?? (status >= 500 ? 'internal_server_error' : 'bad_request');
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers, e.g. Retry-After on a 429. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }
}
