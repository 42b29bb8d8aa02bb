import { createChallenge, randomInt, verifySolution, type Challenge, type Payload } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { LocalSupabaseConfig } from '../config.ts';
import { AuthError } from './errors.ts';

/** The login screen's texts for the three ways a bot check can fail (spec §5 Login). */
const CAPTCHA_MESSAGES = {
  missing: 'Please complete the security check',
  failed: 'Security check failed',
  expired: 'Security check expired',
} as const;

const captchaError = (message: string) => new AuthError(400, 'captcha_failed', message);

/**
 * Self-hosted ALTCHA (proof-of-work v2, the format the ALTCHA widget v3 fetches from its
 * challenge URL and submits as base64 JSON {challenge, solution}) standing in for the
 * hCaptcha/Turnstile check hosted GoTrue runs on /otp.
 */
export function createCaptcha(config: LocalSupabaseConfig['captcha']) {
  // A solved challenge is good for one request: remember it until it would have expired.
  const used = new Map<string, number>();

  function forgetExpired(nowSeconds: number) {
    for (const [key, expiresAt] of used) if (expiresAt < nowSeconds) used.delete(key);
  }

  return {
    async createChallenge(): Promise<Challenge> {
      return createChallenge({
        algorithm: 'SHA-256',
        cost: 1,
        // Deterministic mode: the server picks the counter, so the work is bounded by maxNumber.
        counter: randomInt(Math.max(1, config.maxNumber), Math.min(1_000, Math.ceil(config.maxNumber / 10))),
        deriveKey,
        expiresAt: Math.floor(Date.now() / 1000) + config.expiresInSeconds,
        hmacSignatureSecret: config.hmacKey,
      });
    },

    /** Throws 400 captcha_failed unless the token is a fresh, genuine, unused solution. */
    async verify(token: string | undefined): Promise<void> {
      if (!config.enabled) return;
      if (!token) throw captchaError(CAPTCHA_MESSAGES.missing);
      let payload: Payload;
      try {
        payload = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Payload;
      } catch {
        throw captchaError(CAPTCHA_MESSAGES.failed);
      }
      const params = payload?.challenge?.parameters;
      if (!params || typeof params !== 'object' || !payload.solution || typeof payload.challenge.signature !== 'string') {
        throw captchaError(CAPTCHA_MESSAGES.failed);
      }
      let result: Awaited<ReturnType<typeof verifySolution>>;
      try {
        result = await verifySolution({ challenge: payload.challenge, solution: payload.solution, deriveKey, hmacSignatureSecret: config.hmacKey });
      } catch {
        throw captchaError(CAPTCHA_MESSAGES.failed);
      }
      if (result.expired) throw captchaError(CAPTCHA_MESSAGES.expired);
      if (!result.verified) throw captchaError(CAPTCHA_MESSAGES.failed);
      const now = Date.now() / 1000;
      forgetExpired(now);
      // The signature covers nonce, salt and expiry: unique per issued challenge.
      const key = payload.challenge.signature;
      if (used.has(key)) throw captchaError(CAPTCHA_MESSAGES.failed);
      used.set(key, typeof params.expiresAt === 'number' ? params.expiresAt : now + config.expiresInSeconds);
    },
  };
}

export type Captcha = ReturnType<typeof createCaptcha>;
