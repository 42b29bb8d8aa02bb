/**
 * @module The one place that turns anything thrown into the error contract
 * `{ message, errors: [{ msg, code }] }` (`message` = the first `msg`, for APIFRAME v1
 * clients): ApiError → its status; Hono's HTTPException (malformed JSON, unsupported media
 * type, too many requests) → the matching code; anything else → a generic 500 that carries no
 * internals, logged with the request id.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, errorBody, UNEXPECTED_ERROR_MESSAGE, type ErrorCode, type ErrorBody } from '../../errors.ts';
import type { AppEnv } from '../../context.ts';
import { EstimateReached } from '../../services/pricing/estimate.ts';
import type { Logger } from '../../logger.ts';

const HTTP_EXCEPTION_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_json',
  401: 'invalid_api_key',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

const HTTP_EXCEPTION_MESSAGES: Partial<Record<number, string>> = {
  413: 'Request body is too large',
  415: 'Content-Type must be application/json',
  429: 'Too many requests; try again later',
};

function respond(c: Context<AppEnv>, status: number, body: ErrorBody) {
  // A 413 may leave the rest of a body unread (past the body limit's drain bound): close the
  // connection so a client does not reuse it. After a drained body the close is harmless.
  return c.json(body, status as ContentfulStatusCode, status === 413 ? { connection: 'close' } : undefined);
}

export function errorHandler(log: Logger): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof ApiError) return respond(c, err.status, err.toBody());
    // a POST /estimate dry run stopped where the hold would be taken (services/pricing/estimate.ts)
    if (err instanceof EstimateReached) return c.body(null, 204);
    if (err instanceof HTTPException && err.status < 500) {
      const code = HTTP_EXCEPTION_CODES[err.status] ?? 'bad_request';
      const msg = HTTP_EXCEPTION_MESSAGES[err.status] ?? (err.message || 'Bad request');
      return respond(c, err.status, errorBody({ msg, code }));
    }
    // Name, message, SQLSTATE and stack only: a driver's `detail` can quote row values (keys).
    const e = err as Error & { code?: unknown };
    log.error('unhandled error', {
      request_id: c.var.requestId,
      method: c.req.method,
      path: c.req.path,
      error: `${e.name}: ${e.message}`,
      sqlstate: typeof e.code === 'string' ? e.code : undefined,
      stack: e.stack,
    });
    return respond(c, 500, errorBody({ msg: UNEXPECTED_ERROR_MESSAGE, code: 'internal_error' }));
  };
}

export const notFoundHandler: NotFoundHandler<AppEnv> = (c) =>
  respond(c, 404, errorBody({ msg: `Not found: ${c.req.method} ${c.req.path}`, code: 'not_found' }));
