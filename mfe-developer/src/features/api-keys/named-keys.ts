// Named, scoped API keys (issue 20; server: GET/POST /auth/api-keys, POST /auth/api-keys/{id}/revoke):
// the shapes the API answers, the create form's rules and how a key reads in the table. Pure.
import type { ApiData, ApiSchema } from '@aim/shared-kit/api';
import { formatUtcDate, formatUtcDateTime } from '@aim/shared-kit/format';

export const KEY_SCOPES = ['generate', 'read'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const SCOPE_HELP: Record<KeyScope, string> = {
  generate: 'Submit tasks and upload files',
  read: 'Fetch tasks, account info and webhook deliveries',
};

/** A named key as GET /auth/api-keys lists it (never the key itself). */
export type NamedKey = ApiSchema<'ApiKey'>;

/** POST /auth/api-keys's answer: the key itself, this once. */
export type CreatedNamedKey = ApiData<'post', '/auth/api-keys'>;

export type NewNamedKey = ApiSchema<'CreateApiKeyRequest'>;

export const NAMED_KEY_TEXTS = {
  title: 'Named keys',
  description: 'Extra keys for each app or environment, each with its own scopes, expiry and monthly credit limit. Revoke one without touching the others.',
  create: 'Create key',
  empty: 'No named keys yet. Create one for each app that calls the API.',
  loading: 'Loading your named keys…',
  loadFailed: 'Your named keys could not be loaded.',
  created: 'API key created',
  createFailed: 'Failed to create API key',
  revoked: 'API key revoked',
  revokeFailed: 'Failed to revoke API key',
  copied: 'API key copied to clipboard',
  shownOnce: 'Copy this key now: it will not be shown again. Only a hash of it is stored.',
  revokeConfirm: 'Revoke this API key?',
} as const;

export const NAME_MAX = 64;

/** The create form as typed: strings, as the inputs hold them. */
export type KeyForm = { name: string; scopes: KeyScope[]; expiresOn: string; monthlyLimit: string };

export const EMPTY_FORM: KeyForm = { name: '', scopes: ['generate', 'read'], expiresOn: '', monthlyLimit: '' };

export type FormErrors = Partial<Record<'name' | 'scopes' | 'expiresOn' | 'monthlyLimit', string>>;

/** Today in UTC as yyyy-mm-dd (the date input's min: a key expires at the end of the chosen UTC day). */
export function todayUtc(now = new Date()): string {
  return formatUtcDate(now)!;
}

/**
 * The form as POST /auth/api-keys takes it, or what is wrong with it. An expiry date means the
 * end of that day, UTC (so a key made to expire "today" still works until midnight UTC).
 */
export function readKeyForm(form: KeyForm, now = new Date()): { ok: true; body: NewNamedKey } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  const name = form.name.trim();
  if (!name) errors.name = 'Enter a name';
  else if (name.length > NAME_MAX) errors.name = `At most ${NAME_MAX} characters`;
  if (form.scopes.length === 0) errors.scopes = 'Choose at least one scope';
  let expiresAt: string | undefined;
  if (form.expiresOn) {
    const end = /^\d{4}-\d{2}-\d{2}$/.test(form.expiresOn) ? new Date(`${form.expiresOn}T23:59:59.999Z`) : new Date(Number.NaN);
    if (Number.isNaN(end.getTime())) errors.expiresOn = 'Enter a date';
    else if (end.getTime() <= now.getTime()) errors.expiresOn = 'Choose today or a later date';
    else expiresAt = end.toISOString();
  }
  let limit: number | undefined;
  const limitText = form.monthlyLimit.trim();
  if (limitText) {
    limit = Number(limitText);
    if (!/^\d+$/.test(limitText) || !Number.isSafeInteger(limit) || limit < 1) errors.monthlyLimit = 'Enter a whole number of credits, at least 1';
    else if (limit > 100_000_000) errors.monthlyLimit = 'At most 100,000,000 credits';
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  const scopes = KEY_SCOPES.filter((s) => form.scopes.includes(s));
  return {
    ok: true,
    body: { name, scopes, ...(expiresAt ? { expires_at: expiresAt } : {}), ...(limit !== undefined ? { monthly_credit_limit: limit } : {}) },
  };
}

/** How the table shows a key: its first 8 characters, an ellipsis, its last 4. */
export function keyHint(key: Pick<NamedKey, 'prefix' | 'last4'>): string {
  return `${key.prefix}…${key.last4}`;
}

export type KeyState = 'active' | 'expired' | 'revoked';

export function keyState(key: Pick<NamedKey, 'revoked' | 'expired'>): KeyState {
  if (key.revoked) return 'revoked';
  return key.expired ? 'expired' : 'active';
}

/** A date in the table (UTC, to the minute), or '–' / the fallback when there is none. */
export function formatKeyDate(iso: string | null, none = '–'): string {
  if (!iso) return none;
  return formatUtcDateTime(iso, 'minute') ?? iso;
}

/** This month's use against the limit: '120 / 5,000' or '120 / no limit'. */
export function formatUsage(key: Pick<NamedKey, 'used_this_month' | 'monthly_credit_limit'>): string {
  const used = key.used_this_month.toLocaleString('en-US');
  return key.monthly_credit_limit === null ? `${used} / no limit` : `${used} / ${key.monthly_credit_limit.toLocaleString('en-US')}`;
}
