import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * An error GoTrue answers with `{code, message}` (API version 2024-01-01, which every
 * supabase-js sends). `code` is one of GoTrue's ErrorCode strings: the client keys its
 * behaviour on some of them (session_not_found signs the client out, for example).
 */
export class AuthError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badJson = (detail: string) => new AuthError(400, 'bad_json', `Could not parse request body as JSON: ${detail}`);

export const validationFailed = (message: string) => new AuthError(400, 'validation_failed', message);
