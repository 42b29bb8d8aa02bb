/**
 * @module The Stripe SDK client and its configuration. The API version is pinned to the one
 * this stripe-node release was generated for, so responses (and webhook payloads of an
 * endpoint created with the same version) have the shapes the adapter's types describe.
 */
import Stripe from 'stripe';

/** stripe-node 23.1.0 is generated for this version; bump both together. */
export const STRIPE_API_VERSION = '2026-10-28.endive' as const;

export interface StripeConfig {
  secretKey: string;
  publishableKey: string;
  /** The webhook endpoint's signing secret (whsec_…). */
  webhookSecret: string;
  /** Where the API answers (default https://api.stripe.com); tests point it at a local fake. */
  apiBase?: string;
  /** Transport retries of one call, each with the same Idempotency-Key (SDK default 2). */
  maxNetworkRetries?: number;
  timeoutMs?: number;
  /** Seconds a webhook signature stays acceptable (Stripe's default 300). */
  webhookToleranceSec?: number;
}

/** What Stripe billing needs, all three. */
export const STRIPE_ENV_VARIABLES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'STRIPE_WEBHOOK_SECRET'] as const;

export interface StripeEnv {
  STRIPE_SECRET_KEY?: string;
  STRIPE_PUBLISHABLE_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  STRIPE_API_BASE?: string;
}

/**
 * Reads the Stripe settings, failing fast when one is missing: without the webhook secret no
 * payment would ever grant credits, and without the publishable key no card form can load.
 *
 * @example
 * const config = stripeConfigFromEnv(process.env)
 */
export function stripeConfigFromEnv(env: StripeEnv): StripeConfig {
  const missing = STRIPE_ENV_VARIABLES.filter((name) => !env[name]);
  if (missing.length) throw new Error(`Stripe billing needs ${missing.join(', ')}`);
  return {
    secretKey: env.STRIPE_SECRET_KEY!,
    publishableKey: env.STRIPE_PUBLISHABLE_KEY!,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET!,
    ...(env.STRIPE_API_BASE ? { apiBase: env.STRIPE_API_BASE } : {}),
  };
}

/** Live keys see live objects only; a test-mode event reaching a live server is not ours. */
export function isLiveKey(secretKey: string): boolean {
  return /^(sk|rk)_live_/.test(secretKey);
}

export function createStripeClient(config: StripeConfig): Stripe {
  const base = config.apiBase ? new URL(config.apiBase) : undefined;
  if (base && base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`STRIPE_API_BASE must be an http(s) URL, not ${config.apiBase}`);
  return new Stripe(config.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    maxNetworkRetries: config.maxNetworkRetries ?? 2,
    timeout: config.timeoutMs ?? 20_000,
    telemetry: false,
    appInfo: { name: 'aim-server' },
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  });
}
