/**
 * @module An auto top-up attempt from its charge to its outcome, so that one shortfall is
 * charged at most once even when an answer is lost or late:
 *
 * - `chargeAttempt` sends the charge with the attempt's idempotency key and, when the call
 *   fails without an answer (timeout, network), sends exactly the same request again, so
 *   the provider answers with the charge it already made instead of making a second one.
 *   When no answer comes at all the attempt stays open (outcome unknown, counted as a
 *   failure toward turning auto top-up off).
 * - `finishAttempt` settles an attempt nobody is waiting on any more (older than the attempt
 *   window): with a payment id it asks the provider what became of that payment; without
 *   one it sends the same charge again with the same key.
 * - A success, reported by the call or found later, is settled through the billing event
 *   handler, the same idempotent grant (`pi:<intent>`) as the provider's webhook, so the
 *   webhook arriving as well, early or late, grants nothing twice.
 */
import { AUTO_TOPUP_MAX_FAILURES } from '../../../billing/catalog.ts';
import { ProviderError, type OffSessionResult, type PaymentIntentState } from '../../../billing/payment-provider.ts';
import type { AutoTopUpAttempt } from '../../../repositories/billing/auto-topup-attempts.ts';
import { billingRepository } from '../../../repositories/billing/billing-repository.ts';
import type { Billing } from '../billing.ts';
import { handleBillingEvent } from '../handle-event.ts';
import { AUTO_TOPUP_ATTEMPT_WINDOW_MS, AUTO_TOPUP_RESUME_LIMIT_MS, AUTO_TOPUP_RETRY_DELAYS_MS } from './policy.ts';
import type { AttemptProgress, AutoTopUpOutcome } from './types.ts';

const UNREACHABLE_MESSAGE = 'The payment provider could not be reached';
const NEVER_CONFIRMED_MESSAGE = 'The payment provider never confirmed the charge';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Charges the attempt's card for its amount under its one idempotency key, then records the outcome. */
export async function chargeAttempt(billing: Billing, attempt: AutoTopUpAttempt, customerId: string): Promise<AutoTopUpOutcome> {
  const repo = billingRepository(billing.db);
  const delays = billing.autoTopUpRetryDelaysMs ?? AUTO_TOPUP_RETRY_DELAYS_MS;
  let result: OffSessionResult | undefined;
  for (let tries = 0; !result; tries++) {
    try {
      result = await billing.provider.chargeOffSession({
        customerId,
        paymentMethodId: attempt.payment_method_id ?? '',
        amountCents: attempt.amount_cents,
        credits: attempt.credits,
        metadata: { attempt_id: attempt.id, user_id: attempt.user_id },
        idempotencyKey: `auto-topup:${attempt.id}`,
      });
    } catch (e) {
      if (e instanceof ProviderError) {
        // the provider answered and refused (a card gone, a bad request): nothing was charged
        await repo.attemptFailed({
          attemptId: attempt.id,
          intentId: null,
          code: e.code,
          message: e.message,
          at: billing.now(),
          maxFailures: AUTO_TOPUP_MAX_FAILURES,
          disable: false,
        });
        return { status: 'failed', intentId: null, code: e.code, message: e.message };
      }
      billing.log.error('auto top-up charge got no answer', { user_id: attempt.user_id, attempt_id: attempt.id, try: tries + 1, error: (e as Error).message });
      if (tries >= delays.length) {
        // maybe charged, maybe not: keep the attempt (and its key) to finish it later
        await repo.attemptOutcomeUnknown({ attemptId: attempt.id, message: UNREACHABLE_MESSAGE, maxFailures: AUTO_TOPUP_MAX_FAILURES });
        return { status: 'failed', intentId: null, code: 'provider_unreachable', message: UNREACHABLE_MESSAGE };
      }
      await sleep(delays[tries]);
    }
  }

  const answer: OffSessionResult = result;
  await repo.setAttemptIntent(attempt.id, answer.intentId);
  if (answer.status !== 'failed') {
    if (answer.status === 'processing') return answer;
    await settle(billing, customerId, attempt, {
      id: answer.intentId,
      status: 'succeeded',
      amountCents: attempt.amount_cents,
      currency: 'usd',
      paymentMethodId: attempt.payment_method_id,
      metadata: {},
    });
    return answer;
  }
  await settle(billing, customerId, attempt, { ...answer, id: answer.intentId, metadata: {} });
  return { status: 'failed', intentId: answer.intentId, code: answer.declineCode ?? answer.code, message: answer.message };
}

/**
 * Brings a pending attempt to its outcome when its caller is gone (older than the attempt
 * window). Answers 'open' while the outcome is still unknown (the provider is processing,
 * or cannot be reached), else 'closed'.
 */
export async function finishAttempt(billing: Billing, attempt: AutoTopUpAttempt): Promise<AttemptProgress> {
  const age = billing.now().getTime() - attempt.created_at.getTime();
  if (age < (billing.autoTopUpAttemptWindowMs ?? AUTO_TOPUP_ATTEMPT_WINDOW_MS)) return 'open';
  const repo = billingRepository(billing.db);
  const account = await repo.account(attempt.user_id);
  if (!account?.customer_id) return 'open';

  if (attempt.intent_id) {
    let state: PaymentIntentState;
    try {
      state = await billing.provider.retrievePaymentIntent(account.customer_id, attempt.intent_id);
    } catch (e) {
      billing.log.error('auto top-up payment could not be looked up', { attempt_id: attempt.id, error: (e as Error).message });
      return 'open';
    }
    await settle(billing, account.customer_id, attempt, state);
    return state.status === 'processing' ? 'open' : 'closed';
  }

  if (age > AUTO_TOPUP_RESUME_LIMIT_MS) {
    await repo.attemptFailed({
      attemptId: attempt.id,
      intentId: null,
      code: 'unknown_outcome',
      message: NEVER_CONFIRMED_MESSAGE,
      at: billing.now(),
      maxFailures: AUTO_TOPUP_MAX_FAILURES,
      disable: false,
    });
    return 'closed';
  }
  const outcome = await chargeAttempt(billing, attempt, account.customer_id);
  return outcome.status === 'processing' || (outcome.status === 'failed' && outcome.code === 'provider_unreachable') ? 'open' : 'closed';
}

/**
 * The periodic sweep: finishes every attempt left pending past the attempt window, so a
 * payment whose answer and webhook were both lost is settled even if the user never runs
 * another task. Safe to run in several processes at once (settling is idempotent).
 */
export async function finishAbandonedAttempts(billing: Billing, limit = 50): Promise<number> {
  const before = new Date(billing.now().getTime() - (billing.autoTopUpAttemptWindowMs ?? AUTO_TOPUP_ATTEMPT_WINDOW_MS));
  const attempts = await billingRepository(billing.db).pendingAttemptsBefore(before, limit);
  let closed = 0;
  for (const attempt of attempts) {
    try {
      if ((await finishAttempt(billing, attempt)) === 'closed') closed++;
    } catch (e) {
      billing.log.error('auto top-up attempt could not be finished', { attempt_id: attempt.id, error: (e as Error).message });
    }
  }
  return closed;
}

/** What the provider reports, settled through the one billing event handler (idempotent, like its webhook). */
async function settle(billing: Billing, customerId: string, attempt: AutoTopUpAttempt, state: PaymentIntentState): Promise<void> {
  const base = { id: `reconciled:${state.id}`, created: billing.now(), customerId, intentId: state.id, kind: 'auto_topup' as const };
  if (state.status === 'succeeded') {
    await handleBillingEvent(billing, {
      ...base,
      type: 'payment_intent.succeeded',
      amountCents: state.amountCents,
      currency: state.currency,
      paymentMethodId: state.paymentMethodId,
      savedPaymentMethod: false,
      metadata: { ...state.metadata, attempt_id: attempt.id, user_id: attempt.user_id },
    });
  } else if (state.status === 'failed') {
    await handleBillingEvent(billing, {
      ...base,
      type: 'payment_intent.payment_failed',
      code: state.code,
      declineCode: state.declineCode,
      message: state.message,
      metadata: { ...state.metadata, attempt_id: attempt.id, user_id: attempt.user_id },
    });
  }
}
