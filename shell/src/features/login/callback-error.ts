/**
 * The reason an auth redirect came back without a session: GoTrue puts `error`,
 * `error_code` and `error_description` in the query (PKCE) and in the fragment (implicit),
 * e.g. a cancelled GitHub consent or an expired or used magic link (`otp_expired`).
 * Answers null when the URL carries no error.
 */
export function callbackError(location: Pick<Location, 'search' | 'hash'>): string | null {
  for (const part of [location.search, location.hash.replace(/^#/, '')]) {
    const params = new URLSearchParams(part);
    const reason = params.get('error_description') || params.get('error');
    if (reason) return reason;
  }
  return null;
}
