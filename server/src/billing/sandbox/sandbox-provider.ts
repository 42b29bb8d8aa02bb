/**
 * @module The sandbox payment provider: Stripe test mode without Stripe. Its objects
 * (customers, payment methods, subscriptions, invoices, payment and setup intents) live in
 * the billing_sandbox schema and follow Stripe's statuses; test cards (test-cards.ts) decide
 * every outcome, including declines and 3-D Secure. The browser confirms a client secret
 * through `confirm` (the sandbox card form's POST /billing/sandbox/confirm), and each state
 * change emits a provider event, stored like Stripe's event log and delivered after commit
 * to the billing event handler: the only place credits are granted.
 *
 * This file composes the provider from its parts: store.ts (rows, ids, shared SQL),
 * customers.ts (customers and saved cards), intents.ts (payment and setup intents, confirm,
 * off-session charges), subscriptions.ts (subscriptions, invoices, the billing clock),
 * money-events.ts (refunds, disputes, failed renewals) and events.ts (the event log).
 * It refuses to exist in production (see select-provider.ts).
 */
import type { Db } from '@aim/supabase/db';
import type { BillingEvent, BillingEventSink, PaymentProvider } from '../payment-provider.ts';
import { sandboxCustomers } from './customers.ts';
import { createEventLog } from './events.ts';
import { sandboxIntents } from './intents.ts';
import { sandboxMoneyEvents } from './money-events.ts';
import type { SandboxConfirmInput, SandboxConfirmResult } from './store.ts';
import { sandboxSubscriptions } from './subscriptions.ts';

export interface SandboxProvider extends PaymentProvider {
  readonly kind: 'sandbox';
  confirm(customerId: string, input: SandboxConfirmInput): Promise<SandboxConfirmResult>;
  /** Runs the customer's billing clock up to `to`: renewals and cancellations at period end. */
  advanceClock(customerId: string, to: Date): Promise<void>;
  /** Every event emitted for the customer, oldest first. */
  events(customerId: string): Promise<BillingEvent[]>;
  /**
   * Money events, as Stripe's dashboard (or a bank) would cause them, on one of the customer's
   * succeeded payments (`paymentRef`: pi:<intent> / in:<invoice>, or its bare id; default the
   * newest). A refund without an amount refunds what is left; a dispute without one disputes it.
   */
  refund(customerId: string, input: { paymentRef?: string; amountCents?: number }): Promise<SandboxMoneyResult>;
  openDispute(customerId: string, input: { paymentRef?: string; amountCents?: number }): Promise<SandboxMoneyResult>;
  /** Closes the customer's dispute (`disputeId`, default the newest open one) as won or lost. */
  closeDispute(customerId: string, input: { disputeId?: string; outcome: 'won' | 'lost' }): Promise<SandboxMoneyResult>;
  /** The next renewal of the live subscription fails now: invoice.payment_failed, subscription past_due. */
  failRenewal(customerId: string): Promise<{ subscriptionId: string; invoiceId: string }>;
}

export interface SandboxMoneyResult {
  paymentRef: string | null;
  chargeId: string;
  amountCents: number;
  amountRefundedCents: number;
  disputeId: string | null;
  disputeStatus: 'needs_response' | 'won' | 'lost' | null;
}

/**
 * @example
 * const provider = createSandboxProvider({ db, emit: (event) => handleBillingEvent(deps, event) })
 */
export function createSandboxProvider(deps: { db: Db; emit: BillingEventSink; now?: () => Date }): SandboxProvider {
  const { db } = deps;
  const ctx = { db, now: deps.now ?? (() => new Date()), ...createEventLog(db, deps.emit) };
  return {
    kind: 'sandbox',
    ...sandboxCustomers(db),
    ...sandboxSubscriptions(ctx),
    ...sandboxMoneyEvents(ctx),
    ...sandboxIntents(ctx),
    events: ctx.events,
  };
}
