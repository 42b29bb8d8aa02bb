import { AI_PHOTO } from './domain.ts';

export const MESSAGES = {
  webhookUrl: 'Enter a valid webhook URL or leave blank to remove the webhook URL',
  webhookScheme: 'Webhook must start with http:// or https://',
  captchaMissing: 'Please complete the security check',
  captchaFailed: 'Security check failed',
  captchaExpired: 'Security check expired',
  triggerWord: 'Trigger word must be 6–12 characters',
} as const;

export type Validation = { ok: true } | { ok: false; message: string };
const ok: Validation = { ok: true };

export function isValidEmail(value: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim());
}

/** Settings reading: a parseable http(s) URL, or blank to remove. */
export function validateWebhookUrl(value: string): Validation {
  const v = value.trim();
  if (!v) return ok;
  try {
    const url = new URL(v);
    return url.protocol === 'http:' || url.protocol === 'https:' ? ok : { ok: false, message: MESSAGES.webhookUrl };
  } catch {
    return { ok: false, message: MESSAGES.webhookUrl };
  }
}

/** API Keys page reading: starts with http:// or https:// (any case); empty allowed. */
export function validateWebhookScheme(value: string): Validation {
  const v = value.trim();
  return !v || /^https?:\/\//i.test(v) ? ok : { ok: false, message: MESSAGES.webhookScheme };
}

/** Custom top-up input: keep digits only (the billing remote checks the amount against the server's catalog). */
export function digitsOnly(value: string): string {
  return value.replace(/\D+/g, '');
}

export function validateTriggerWord(value: string): Validation {
  const { min, max } = AI_PHOTO.triggerWord;
  return value.length >= min && value.length <= max ? ok : { ok: false, message: MESSAGES.triggerWord };
}

/** Login/captcha errors the auth server answers with, mapped to what the form shows. */
export function captchaErrorKind(message: string): 'missing' | 'failed' | 'expired' | null {
  if (message === MESSAGES.captchaMissing) return 'missing';
  if (message === MESSAGES.captchaFailed) return 'failed';
  if (message === MESSAGES.captchaExpired) return 'expired';
  return null;
}
