/**
 * @module The billing service's dependencies, built once per app: the database, the payment
 * provider (sandbox by default) and the event handler it reports to.
 */
import type { Db } from '@aim/supabase/db';
import type { BillingEvent, PaymentProvider } from '../../billing/payment-provider.ts';
import type { SandboxProvider } from '../../billing/sandbox/sandbox-provider.ts';
import { selectPaymentProvider, type ProviderEnv } from '../../billing/select-provider.ts';
import type { Logger } from '../../logger.ts';
import { logMailer, type Mailer } from '../../mail/mailer.ts';
import { handleBillingEvent } from './handle-event.ts';

export interface Billing {
  db: Db;
  log: Logger;
  provider: PaymentProvider;
  /** Notifications (the low-balance alert): the dev mailbox in embedded mode, else log-only (mail/mailer.ts). */
  mailer?: Mailer;
  now: () => Date;
  /** Wait after the first failed auto top-up charge; doubles with each further failure. */
  autoTopUpBackoffMs: number;
  /** Waits between the tries of a charge call that got no answer (default auto-topup/policy.ts). */
  autoTopUpRetryDelaysMs?: readonly number[];
  /** Age after which a pending attempt is finished by whoever comes next (default auto-topup/policy.ts). */
  autoTopUpAttemptWindowMs?: number;
}

/** Ten minutes, then twenty: a declined card is rarely fixed sooner, and 3 failures disable. */
const DEFAULT_AUTO_TOPUP_BACKOFF_MS = 10 * 60_000;

/**
 * @example
 * const billing = createBilling({ db, log, embedded: true })
 * await maybeAutoTopUp(billing, userId)   // after a task charged credits
 */
export function createBilling(deps: {
  db: Db;
  log: Logger;
  /** Embedded mode may run the sandbox without being asked (select-provider.ts). */
  embedded: boolean;
  env?: ProviderEnv;
  now?: () => Date;
  autoTopUpBackoffMs?: number;
  /** Default: log-only (main.ts passes the dev mailbox in embedded mode). */
  mailer?: Mailer;
}): Billing {
  const billing = {
    db: deps.db,
    log: deps.log,
    mailer: deps.mailer ?? logMailer(deps.log),
    now: deps.now ?? (() => new Date()),
    autoTopUpBackoffMs: deps.autoTopUpBackoffMs ?? DEFAULT_AUTO_TOPUP_BACKOFF_MS,
  } as Billing;
  billing.provider = selectPaymentProvider({
    db: deps.db,
    env: deps.env ?? process.env,
    embedded: deps.embedded,
    now: billing.now,
    emit: (event: BillingEvent) => handleBillingEvent(billing, event),
  });
  return billing;
}

export function sandboxOf(billing: Billing): SandboxProvider | undefined {
  return billing.provider.kind === 'sandbox' ? (billing.provider as SandboxProvider) : undefined;
}
