/**
 * @module The one error contract of the provider API: `{ message, errors: [{ msg, code }] }`,
 * where `message` repeats the first entry's `msg` (APIFRAME v1 clients read `message`; ours
 * read `errors[0].msg`). Throw `new ApiError(code, msg)` anywhere below a route; the error
 * handler (middleware/error-handler) turns it into a response with the status of its code.
 */
import type { ZodError } from 'zod';

/** Every error code the API answers with, and its HTTP status. Add new codes here. */
const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_webhook_url: 400,
  bad_request: 400,
  engine_unavailable: 400,
  invalid_idempotency_key: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
  invalid_session: 401,
  insufficient_credits: 402,
  account_on_hold: 402,
  api_key_credit_limit: 402,
  forbidden: 403,
  insufficient_scope: 403,
  session_required: 403,
  not_found: 404,
  conflict: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  too_many_requests: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface ErrorEntry {
  msg: string;
  code: ErrorCode;
}

export interface ErrorBody {
  /** The first entry's msg. */
  message: string;
  errors: ErrorEntry[];
}

/** The answer body for these entries (at least one): the first message on top, then every entry. */
export function errorBody(first: ErrorEntry, ...more: ErrorEntry[]): ErrorBody {
  return { message: first.msg, errors: [first, ...more] };
}

/** The message of the spec's error catalogue (§8), also the client's default. */
export const UNEXPECTED_ERROR_MESSAGE = 'An unexpected error occured, Please refresh and try again!';

/**
 * An expected failure with a message meant for the user.
 *
 * @example
 * throw new ApiError('invalid_api_key', 'Invalid API key')
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  /** Extra entries after the first (e.g. one per invalid field). */
  readonly more: ErrorEntry[];

  constructor(code: ErrorCode, msg: string, more: ErrorEntry[] = []) {
    super(msg);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.more = more;
  }

  toBody(): ErrorBody {
    return errorBody({ msg: this.message, code: this.code }, ...this.more);
  }
}

// A body can carry many mistakes; answering the first few keeps the response small.
const MAX_ISSUES = 10;

/** One readable message per zod issue: `field.path: message` (or the message alone at the root). */
function zodIssueMessages(error: ZodError): string[] {
  return error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}

/** A request that failed its zod schema, as an ApiError (400 validation_failed). */
export function validationError(error: ZodError): ApiError {
  const [first = 'Invalid request', ...rest] = zodIssueMessages(error);
  return new ApiError(
    'validation_failed',
    first,
    rest.map((msg) => ({ msg, code: 'validation_failed' as const })),
  );
}
