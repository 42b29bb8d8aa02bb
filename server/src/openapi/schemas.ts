/**
 * @module Pieces every route definition shares: the error schema, the standard error
 * responses, and the apiKey security requirement.
 */
import { z } from '@hono/zod-openapi';
import { UNEXPECTED_ERROR_MESSAGE } from '../errors.ts';
import { SESSION_INVALID_MESSAGE, SESSION_REQUIRED_MESSAGE } from '../services/auth/authenticate-session.ts';

/** Name of the security scheme in the OpenAPI document (the Authorization header). */
export const API_KEY_SCHEME = 'apiKey';

export const apiKeySecurity = [{ [API_KEY_SCHEME]: [] as string[] }];

/** Name of the dashboard-session scheme (the X-Session-Token header). */
export const SESSION_SCHEME = 'dashboardSession';

/** Calls that move money or change credentials: the dashboard session, with the API key beside it. */
export const dashboardSecurity = [{ [SESSION_SCHEME]: [] as string[], [API_KEY_SCHEME]: [] as string[] }];

const ErrorResponseSchema = z
  .object({
    message: z.string().openapi({ description: 'The first error message again (`errors[0].msg`), where APIFRAME v1 clients read it.' }),
    errors: z
      .array(
        z.object({
          msg: z.string().openapi({ description: 'Human-readable message, safe to show to the user.' }),
          code: z.string().openapi({ description: 'Stable machine-readable code, e.g. invalid_api_key.' }),
        }),
      )
      .min(1),
  })
  .openapi('ErrorResponse', {
    description: 'Every error answer. Read `errors[0].msg` (or `message`, the same text).',
    example: errorExample({ msg: 'Invalid API key', code: 'invalid_api_key' }),
  });

/** The body of an error answer with one entry, as the error handler writes it (for examples). */
export function errorExample(entry: { msg: string; code: string }) {
  return { message: entry.msg, errors: [entry] };
}

function errorResponse(description: string, example: { msg: string; code: string }) {
  return {
    description,
    content: { 'application/json': { schema: ErrorResponseSchema, example: errorExample(example) } },
  };
}

const rateLimitHeader = (description: string) => ({ description, schema: { type: 'integer' as const, minimum: 0 } });

/** The headers of an answer of a rate-limited call (middleware/rate-limit): on a 429, and on its other answers too. */
const rateLimitHeaders = {
  'RateLimit-Limit': rateLimitHeader('Requests allowed in the current one-minute window by the tightest limit that applies.'),
  'RateLimit-Remaining': rateLimitHeader('Requests left in the current window under that limit.'),
  'RateLimit-Reset': rateLimitHeader('Seconds until the window ends and the count starts again.'),
};

/** The error answers any API-key route can give, to spread into its `responses`. */
export const authedErrorResponses = {
  401: errorResponse('Missing or unknown API key.', { msg: 'Invalid API key', code: 'invalid_api_key' }),
  403: errorResponse('A named API key without the scope this call needs (docs/decisions/0013-named-scoped-api-keys.md).', {
    msg: 'This API key lacks the generate scope',
    code: 'insufficient_scope',
  }),
  413: errorResponse('Request body over the size limit.', { msg: 'Request body is too large', code: 'payload_too_large' }),
  429: {
    ...errorResponse('Over a request rate limit: per API key, per account or per client address (see Rate limits in /docs). Retry after Retry-After seconds.', {
      msg: 'Too many requests: at most 120 submits per minute for this API key. Retry in 17 s.',
      code: 'too_many_requests',
    }),
    headers: { 'Retry-After': rateLimitHeader('Seconds to wait before retrying.'), ...rateLimitHeaders },
  },
  500: errorResponse('Unexpected server error (logged with the request id).', {
    msg: UNEXPECTED_ERROR_MESSAGE,
    code: 'internal_error',
  }),
} as const;

/** The error answers of a route that needs the dashboard session (dashboardSecurity). */
export const dashboardErrorResponses = {
  ...authedErrorResponses,
  401: errorResponse('Missing or unknown API key, or a dashboard session that expired or was signed out.', {
    msg: SESSION_INVALID_MESSAGE,
    code: 'invalid_session',
  }),
  403: errorResponse('The API key alone: this call needs the signed-in dashboard session (X-Session-Token).', {
    msg: SESSION_REQUIRED_MESSAGE,
    code: 'session_required',
  }),
} as const;

/** The extra error answers of a route that reads a JSON body. */
export const bodyErrorResponses = {
  400: errorResponse('Invalid input: malformed JSON, or a field that fails validation.', {
    msg: 'Malformed JSON in request body',
    code: 'invalid_json',
  }),
  415: errorResponse('A body that is not JSON.', { msg: 'Content-Type must be application/json', code: 'unsupported_media_type' }),
} as const;

/** A JSON response with its schema and example, for a route's `responses`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** A JSON request body; `required: false` lets clients omit it (then it validates as `{}`). */
export function jsonBody<T extends z.ZodType>(schema: T, required = true) {
  return { required, content: { 'application/json': { schema } } };
}
