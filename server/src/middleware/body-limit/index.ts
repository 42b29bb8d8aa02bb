/**
 * @module The API's request body limit: the shared one whose 413 ordinary clients can read
 * (it drains an oversized body before answering; see @aim/supabase/http), answered in the
 * API's error contract by throwing the caller's ApiError.
 */
import { readableBodyLimit } from '@aim/supabase/http';
import type { ApiError } from '../../errors.ts';

/**
 * @example
 * app.use(bodyLimit({ maxSize: 1024 * 1024, tooLarge: () => new ApiError('payload_too_large', 'Request body is too large') }))
 */
export function bodyLimit(options: { maxSize: number; tooLarge: () => ApiError }) {
  return readableBodyLimit({
    maxSize: options.maxSize,
    tooLarge: () => {
      throw options.tooLarge();
    },
  });
}
