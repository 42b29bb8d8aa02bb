import { PUBLISHABLE_KEY, SECRET_KEY } from './gateway.ts';
import { DEFAULT_ALTCHA_HMAC_KEY, DEFAULT_ANON_KEY, DEFAULT_JWT_SECRET, DEFAULT_SERVICE_ROLE_KEY } from './keys.ts';

/** Endpoints of the OAuth provider used for "Sign in with GitHub". */
export interface GithubProviderConfig {
  authorizeUrl: string;
  tokenUrl: string;
  userUrl: string;
  emailsUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface LocalSupabaseConfig {
  /** Public origin of these services (GoTrue's API_EXTERNAL_URL without /auth/v1), e.g. http://localhost:54321 */
  publicUrl: string;
  /** The dashboard's origin; redirect_to must match it (any port on loopback) or the allow-list. */
  siteUrl: string;
  /** Extra allowed redirect globs (GoTrue URI_ALLOW_LIST). */
  redirectAllowList: string[];
  jwtSecret: string;
  /** Access token lifetime in seconds (GoTrue JWT_EXP). */
  jwtExp: number;
  anonKey: string;
  serviceRoleKey: string;
  /** The `sb_publishable_…` key the gateway maps to anonKey. */
  publishableKey: string;
  /** The `sb_secret_…` key the gateway maps to serviceRoleKey: as powerful as that key. */
  secretKey: string;
  /**
   * Embedded mode (the launcher on loopback): mounts /_dev, the dev mailbox and the fake
   * GitHub provider. Off by default: anyone who reaches them can read every magic link or be
   * any GitHub user, so a deployment others can reach must never have them.
   */
  embedded: boolean;
  /** Magic link / OTP validity in seconds (MAILER_OTP_EXP; CLI default 3600). */
  otpExp: number;
  /** Minimum seconds between two mails to one address (GoTrue SMTP_MAX_FREQUENCY; CLI default 1). */
  emailMaxFrequency: number;
  /** Refresh token reuse window in seconds (REFRESH_TOKEN_REUSE_INTERVAL; CLI default 10). */
  refreshReuseInterval: number;
  /**
   * Brute-force guard of /verify: wrong codes before a mailed code is burned, and failed
   * verifications per client address within windowSeconds (then 429 over_request_rate_limit).
   */
  verifyLimits: { perToken: number; perAddress: number; windowSeconds: number };
  captcha: { enabled: boolean; hmacKey: string; maxNumber: number; expiresInSeconds: number };
  github: GithubProviderConfig;
}

/**
 * Defaults: the Supabase CLI's keys, the local fake GitHub provider at /_dev/github (mounted
 * only with `embedded: true`, which the launcher sets on loopback).
 */
export function defaultLocalConfig(overrides: Partial<LocalSupabaseConfig> & { publicUrl: string }): LocalSupabaseConfig {
  const base = overrides.publicUrl.replace(/\/$/, '');
  return {
    siteUrl: 'http://localhost:3000',
    redirectAllowList: [],
    jwtSecret: DEFAULT_JWT_SECRET,
    jwtExp: 3600,
    anonKey: DEFAULT_ANON_KEY,
    serviceRoleKey: DEFAULT_SERVICE_ROLE_KEY,
    publishableKey: PUBLISHABLE_KEY,
    secretKey: SECRET_KEY,
    embedded: false,
    otpExp: 3600,
    refreshReuseInterval: 10,
    emailMaxFrequency: 1,
    verifyLimits: { perToken: 5, perAddress: 30, windowSeconds: 300 },
    captcha: { enabled: true, hmacKey: DEFAULT_ALTCHA_HMAC_KEY, maxNumber: 50_000, expiresInSeconds: 600 },
    github: {
      authorizeUrl: `${base}/_dev/github/login/oauth/authorize`,
      tokenUrl: `${base}/_dev/github/login/oauth/access_token`,
      userUrl: `${base}/_dev/github/api/user`,
      emailsUrl: `${base}/_dev/github/api/user/emails`,
      clientId: 'local-github-client',
      clientSecret: 'local-github-secret',
    },
    ...overrides,
    publicUrl: base,
  };
}
