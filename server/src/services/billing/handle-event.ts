/**
 * @module THE billing event handler: the only place credits are granted for payments. It
 * takes provider-confirmed events (Stripe webhooks, the sandbox's emitted events), never a
 * browser's word. Grants are keyed by the provider object (`pi:<id>`, `in:<id>`) through
 * public.apply_credit, and the payments row by the same key, so a replayed, duplicated or
 * concurrent event grants once. Subscription state only moves forward in event time, so an
 * old event arriving late cannot undo a newer one.
 */
import { AUTO_TOPUP_MAX_FAILURES, creditsForCents, PLANS, TRIAL } from '../../billing/catalog.ts';
import type { BillingEvent } from '../../billing/payment-provider.ts';
import { recordCredits } from '../../observability/metrics.ts';
import { billingRepository } from '../../repositories/billing-repository.ts';
import { isHopelessFailure } from './auto-topup-policy.ts';
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
      let granted = false;
      await billing.db.transaction(async (tx) => {
        const repo = billingRepository(tx);
        granted = await repo.grantPayment({
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
        await repo.applyPaidPeriod({ userId, subscriptionId: event.subscriptionId, plan: plan.id, periodEnd: event.periodEnd, at: event.created });
        await repo.completeCheckout(event.invoiceId, event.created);
      });
      if (granted) recordCredits('granted', 'subscription', plan.credits);
      if (event.paymentMethodId) await cardSaved(billing, userId, event.customerId, event.paymentMethodId);
      return;
    }

    case 'setup_intent.succeeded':
      await cardSaved(billing, userId, event.customerId, event.paymentMethodId);
      return;

    case 'customer.subscription.deleted':
      await billing.db.transaction((tx) => billingRepository(tx).endSubscription(userId, event.subscriptionId, event.created));
      return;
  }
}

/** A payment or setup saved a card: the first card becomes the default, and a card already on file is not kept twice. */
async function cardSaved(billing: Billing, userId: string, customerId: string, paymentMethodId: string): Promise<void> {
  await billing.provider.ensureDefaultPaymentMethod(customerId, paymentMethodId);
  await tidySavedCards(billing, userId, customerId);
}
