import { AuthError } from './errors.ts';

/**
 * Request limits per client address of the auth endpoints GoTrue rate-limits per IP and our
 * other guards do not cover: POST /otp (GoTrue RATE_LIMIT_OTP; the mails to one address are
 * spaced by SMTP_MAX_FREQUENCY in magic-link.ts, failed codes by verify-limits.ts) and POST
 * /token (RATE_LIMIT_TOKEN_REFRESH). Over the limit: GoTrue's 429 over_request_rate_limit.
 * Roomier than GoTrue's per-5-minute defaults (30 OTPs, 150 refreshes): an office or a test
 * run signs many people in from one address, and /otp already needs a captcha.
 *
 * In memory, like verify-limits.ts: the local services are one process. A request without a
 * socket address ('unknown': the app called in-process) is not limited.
 */
export const REQUEST_LIMITS = {
  otp: { perAddress: 100, windowSeconds: 300 },
  token: { perAddress: 300, windowSeconds: 300 },
} as const;

const PRUNE_AT = 10_000;

/** A fixed-window counter per address; `take` throws the 429 once the window's count is reached. */
export function createAddressLimiter(limit: { perAddress: number; windowSeconds: number }, now: () => number = Date.now) {
  const windowMs = limit.windowSeconds * 1000;
  const windows = new Map<string, { start: number; count: number }>();
  let prunedAt = 0;
  return {
    take(address: string): void {
      if (address === 'unknown') return;
      const t = now();
      if (windows.size >= PRUNE_AT && t - prunedAt >= 1000) {
        prunedAt = t;
        for (const [key, w] of windows) if (t - w.start >= windowMs) windows.delete(key);
      }
      let w = windows.get(address);
      if (!w || t - w.start >= windowMs) {
        w = { start: t, count: 0 };
        windows.set(address, w);
      }
      if (w.count >= limit.perAddress) throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached');
      w.count++;
    },
  };
}
