import { ApiError } from '../../errors.ts';

/**
 * The caller's row vanished between authentication and the update (account deleted):
 * the key no longer identifies anyone, so answer as for an unknown key.
 */
export function accountGone(): ApiError {
  return new ApiError('invalid_api_key', 'Invalid API key');
}
