/**
 * @module THE billing event handler: the only place credits are granted for payments. It
 * takes provider-confirmed events (Stripe webhooks, the sandbox's emitted events), never a
 * browser's word. Grants are keyed by the provider object (`pi:<id>`, `in:<id>`) through
 * public.apply_credit, and the payments row by the same key, so a replayed, duplicated or
 * concurrent event grants once. Subscription state only moves forward in event time, so an
 * old event arriving late cannot undo a newer one.
 *
 * Refunds and disputes take a payment's credits back (repositories/billing/money-events.ts: recorded,
 * then reconciled against the grant; a grant arriving after its refund nets out), a failed
 * renewal makes the subscription past due, and a second subscription paid while another one
 * renews is ended and refunded (docs/decisions/0012-money-events.md).
 */
import { AUTO_TOPUP_MAX_FAILURES, creditsForCents, PLANS, TRIAL } from '../../billing/catalog.ts';
import { type BillingEvent, ProviderError } from '../../billing/payment-provider.ts';
import { recordCredits } from '../../observability/metrics.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import { moneyEventsRepository } from '../../repositories/billing/money-events.ts';
import { isHopelessFailure } from './auto-topup/policy.ts';
import type { Billing } from './billing.ts';
import { tidySavedCards } from './saved-cards.ts';

export async function handleBillingEvent(billing: Billing, event: BillingEvent): Promise<void> {
  const account = await billingRepository(billing.db).accountByCustomerId(event.customerId);
  if (!account) {
    billing.log.info('billing event for an unknown customer ignored', { event_id: event.id, type: event.type });
    return;
  }
  const userId = account.id;

  switch (event.type) {
    case 'payment_intent.succeeded': {
      const credits = event.kind === 'trial' ? TRIAL.credits : creditsForCents(event.amountCents);
      if (event.currency !== 'usd' || credits <= 0) {
        billing.log.error('payment without credits ignored', { event_id: event.id, intent_id: event.intentId });
        return;
      }
      let granted = false;
      await billing.db.transaction(async (tx) => {
        const repo = billingRepository(tx);
        granted = await repo.grantPayment({
          userId,
          email: account.email,
          sourceKey: `pi:${event.intentId}`,
          credits,
          reason: event.kind,
          kind: event.kind,
          planName: event.kind,
          amountCents: event.amountCents,
          currency: event.currency,
          paidAt: event.created,
        });
        // a refund or dispute of this payment that arrived before its grant: the grant nets out
        if (granted) await moneyEventsRepository(tx).reconcile(userId, `pi:${event.intentId}`);
        if (event.kind === 'trial') await repo.markTrialed(userId);
        if (event.kind === 'auto_topup' && event.metadata.attempt_id) await repo.attemptSucceeded(event.metadata.attempt_id, event.intentId, event.created);
        await repo.completeCheckout(event.intentId, event.created);
      });
      if (granted) recordCredits('granted', event.kind, credits);
      if (event.paymentMethodId && event.savedPaymentMethod) await cardSaved(billing, userId, event.customerId, event.paymentMethodId);
      return;
    }

    case 'payment_intent.payment_failed': {
      // on-session declines are shown to the user by the payment form; only auto top-up keeps score
      if (event.kind !== 'auto_topup' || !event.metadata.attempt_id) return;
      const settings = await billingRepository(billing.db).attemptFailed({
        attemptId: event.metadata.attempt_id,
        intentId: event.intentId,
        code: event.declineCode ?? event.code,
        message: event.message,
        at: event.created,
        maxFailures: AUTO_TOPUP_MAX_FAILURES,
        disable: isHopelessFailure(event.code),
      });
      if (settings && !settings.auto_topup) billing.log.info('auto top-up disabled', { user_id: userId, failures: settings.auto_topup_failures });
      return;
    }

    case 'invoice.paid': {
      const plan = PLANS[event.plan];
      let checked = await duplicateCheck(billing, userId, event);
      if (checked === 'duplicate') return;
      // another first invoice of this user may be granting right now (two tabs paid): under the
      // account's row lock a subscription that appeared since the check is seen, and checked again
      const grant = (checkOthers: boolean) =>
        billing.db.transaction(async (tx) => {
          const repo = billingRepository(tx);
          if (!(await repo.lockAccount(userId))) return { conflict: false, granted: false };
          if (checkOthers && event.billingReason === 'subscription_create') {
            const current = await repo.subscription(userId);
            if (current && current.status !== 'canceled' && current.subscription_id !== event.subscriptionId) return { conflict: true, granted: false };
          }
          const granted = await repo.grantPayment({
            userId,
            email: account.email,
            sourceKey: `in:${event.invoiceId}`,
            credits: plan.credits,
            reason: `plan:${plan.id}`,
            kind: 'subscription',
            planName: plan.id,
            amountCents: event.amountCents,
            currency: 'usd',
            paidAt: event.created,
          });
          if (granted) await moneyEventsRepository(tx).reconcile(userId, `in:${event.invoiceId}`);
          await repo.applyPaidPeriod({ userId, subscriptionId: event.subscriptionId, plan: plan.id, periodEnd: event.periodEnd, at: event.created });
          await repo.completeCheckout(event.invoiceId, event.created);
          return { conflict: false, granted };
        });
      let outcome = await grant(checked === 'no_other');
      if (outcome.conflict) {
        checked = await duplicateCheck(billing, userId, event);
        if (checked === 'duplicate') return;
        outcome = await grant(false);
      }
      if (outcome.granted) recordCredits('granted', 'subscription', plan.credits);
      if (event.paymentMethodId) await cardSaved(billing, userId, event.customerId, event.paymentMethodId);
      return;
    }

    case 'setup_intent.succeeded':
      await cardSaved(billing, userId, event.customerId, event.paymentMethodId);
      return;

    case 'customer.subscription.deleted':
      await billing.db.transaction((tx) => billingRepository(tx).endSubscription(userId, event.subscriptionId, event.created));
      return;

    case 'customer.subscription.updated': {
      // incomplete: the first invoice is unpaid (its invoice.paid starts the plan); canceled: .deleted ends it
      if (event.status !== 'active' && event.status !== 'past_due') return;
      await billing.db.transaction((tx) =>
        billingRepository(tx).applySubscriptionUpdate({
          userId,
          subscriptionId: event.subscriptionId,
          plan: event.plan,
          status: event.status as 'active' | 'past_due',
          currentPeriodEnd: event.currentPeriodEnd,
          cancelAtPeriodEnd: event.cancelAtPeriodEnd,
          at: event.created,
        }),
      );
      return;
    }

    case 'invoice.payment_failed': {
      // a renewal that could not be charged; a failed first payment or plan change is the payment form's to show
      if (event.billingReason !== 'subscription_cycle') return;
      const marked = await billing.db.transaction((tx) => billingRepository(tx).markPastDue(userId, event.subscriptionId, event.created));
      if (marked) billing.log.info('subscription past due', { user_id: userId, subscription_id: event.subscriptionId });
      return;
    }

    case 'charge.refunded': {
      const moved = await billing.db.transaction(async (tx) => {
        const money = moneyEventsRepository(tx);
        await money.recordRefund({
          userId,
          chargeId: event.chargeId,
          paymentRef: event.paymentRef,
          paymentAmountCents: event.amountCents,
          amountRefundedCents: event.amountRefundedCents,
          at: event.created,
        });
        return event.paymentRef ? money.reconcile(userId, event.paymentRef) : 0;
      });
      billing.log.info('charge refunded', { user_id: userId, charge_id: event.chargeId, payment_ref: event.paymentRef, credits: moved });
      return;
    }

    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const moved = await billing.db.transaction(async (tx) => {
        const money = moneyEventsRepository(tx);
        await money.recordDispute({
          userId,
          disputeId: event.disputeId,
          chargeId: event.chargeId,
          paymentRef: event.paymentRef,
          paymentAmountCents: event.chargeAmountCents,
          amountCents: event.amountCents,
          status: event.status,
          at: event.created,
        });
        return event.paymentRef ? money.reconcile(userId, event.paymentRef) : 0;
      });
      billing.log.info('charge dispute', { user_id: userId, dispute_id: event.disputeId, status: event.status, credits: moved });
      return;
    }
  }
}

const DUPLICATE_SUBSCRIPTION = 'duplicate_subscription';
/** Provider statuses of a subscription that still renews (or will, once paid). */
const RENEWING = new Set(['active', 'past_due', 'trialing', 'unpaid']);

/**
 * At most one live subscription per customer. A first invoice paid for a second subscription
 * while another one still renews (an old tab paid a checkout that a newer one superseded) is
 * the duplicate: nothing is granted, the subscription is ended at the provider and its payment
 * refunded in full (the refund's own event then records it; nothing to take back). The first
 * subscription whose payment we processed stays. Answers 'duplicate' when the event was that
 * duplicate (now or before: a replay), 'other_ended' when the other subscription turned out to
 * have ended at the provider, 'no_other' when there was none to compare with.
 */
async function duplicateCheck(
  billing: Billing,
  userId: string,
  event: Extract<BillingEvent, { type: 'invoice.paid' }>,
): Promise<'duplicate' | 'other_ended' | 'no_other'> {
  const money = moneyEventsRepository(billing.db);
  if (await money.refundedFor(`in:${event.invoiceId}`, DUPLICATE_SUBSCRIPTION)) return 'duplicate';
  if (event.billingReason !== 'subscription_create') return 'no_other';
  const current = await billingRepository(billing.db).subscription(userId);
  if (!current || current.status === 'canceled' || current.subscription_id === event.subscriptionId) return 'no_other';
  // our copy may lag (the current one ended at the provider, its event not here yet): ask
  let status: string;
  try {
    status = await billing.provider.subscriptionStatus(event.customerId, current.subscription_id);
  } catch (e) {
    if (e instanceof ProviderError && e.code === 'resource_missing') return 'other_ended';
    throw e;
  }
  if (!RENEWING.has(status)) return 'other_ended';

  billing.log.info('duplicate subscription paid: cancelling and refunding it', {
    user_id: userId,
    subscription_id: event.subscriptionId,
    kept: current.subscription_id,
  });
  await billing.provider.cancelSubscriptionNow({ customerId: event.customerId, subscriptionId: event.subscriptionId });
  const refund = await billing.provider.refundInvoicePayment({
    customerId: event.customerId,
    invoiceId: event.invoiceId,
    idempotencyKey: `duplicate-subscription:${event.invoiceId}`,
  });
  await billing.db.transaction(async (tx) => {
    await billingRepository(tx).rememberEnded(userId, event.subscriptionId, event.created);
    await moneyEventsRepository(tx).recordRefund({
      userId,
      chargeId: refund.chargeId,
      paymentRef: `in:${event.invoiceId}`,
      paymentAmountCents: event.amountCents,
      amountRefundedCents: refund.amountCents,
      at: event.created,
      reason: DUPLICATE_SUBSCRIPTION,
    });
    await billingRepository(tx).completeCheckout(event.invoiceId, event.created);
  });
  return 'duplicate';
}

/** A payment or setup saved a card: the first card becomes the default, and a card already on file is not kept twice. */
async function cardSaved(billing: Billing, userId: string, customerId: string, paymentMethodId: string): Promise<void> {
  await billing.provider.ensureDefaultPaymentMethod(customerId, paymentMethodId);
  await tidySavedCards(billing, userId, customerId);
}
