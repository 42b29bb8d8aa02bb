/**
 * @module Saved cards (spec §7): list, make default, remove, and adding one through a setup
 * intent. Ownership is the provider's: every call names the caller's own customer, and a
 * card or setup intent of another customer answers 404 as if it did not exist.
 */
import { randomUUID } from 'node:crypto';
import type { Card } from '../../billing/payment-provider.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import type { Billing } from './billing.ts';
import { billingAccount, ensureCustomer, existingCustomer } from './customer.ts';
import { providerCall } from './provider-errors.ts';
import { tidySavedCards } from './saved-cards.ts';

/** A card as the dashboard sees it (spec §3 Payment method); the fingerprint stays on the server. */
type PublicCard = Omit<Card, 'fingerprint'>;

function publicCard({ fingerprint: _fingerprint, ...card }: Card): PublicCard {
  return card;
}

const PAYMENT_METHOD_NOT_FOUND = 'Payment method not found';
const SETUP_INTENT_NOT_FOUND = 'Setup intent not found';
const LAST_CARD_IN_USE_MESSAGE = 'This is the only card for your subscription or auto top-up. Add another card before removing it.';

export async function listPaymentMethods(billing: Billing, account: Account): Promise<{ paymentMethods: PublicCard[] }> {
  const row = await billingAccount(billing, account);
  if (!row.customer_id) return { paymentMethods: [] };
  return { paymentMethods: (await tidySavedCards(billing, account.id, row.customer_id)).map(publicCard) };
}

export async function makeDefaultPaymentMethod(billing: Billing, account: Account, paymentMethodId: string): Promise<{ paymentMethods: PublicCard[] }> {
  const customerId = await existingCustomer(billing, account, PAYMENT_METHOD_NOT_FOUND);
  await providerCall(() => billing.provider.setDefaultPaymentMethod(customerId, paymentMethodId), PAYMENT_METHOD_NOT_FOUND);
  return { paymentMethods: (await tidySavedCards(billing, account.id, customerId)).map(publicCard) };
}

export async function removePaymentMethod(billing: Billing, account: Account, paymentMethodId: string): Promise<{ paymentMethods: PublicCard[] }> {
  const row = await billingAccount(billing, account);
  if (!row.customer_id) throw new ApiError('not_found', PAYMENT_METHOD_NOT_FOUND);
  const customerId = row.customer_id;
  const cards = await billing.provider.listPaymentMethods(customerId);
  if (!cards.some((c) => c.id === paymentMethodId)) throw new ApiError('not_found', PAYMENT_METHOD_NOT_FOUND);
  if (cards.length === 1) {
    const sub = await billingRepository(billing.db).subscription(account.id);
    const renews = sub?.status === 'active' && !sub.cancel_at_period_end;
    if (renews || row.auto_topup) throw new ApiError('conflict', LAST_CARD_IN_USE_MESSAGE);
  }
  await providerCall(() => billing.provider.detachPaymentMethod(customerId, paymentMethodId), PAYMENT_METHOD_NOT_FOUND);
  return { paymentMethods: (await tidySavedCards(billing, account.id, customerId)).map(publicCard) };
}

export async function createSetupIntent(billing: Billing, account: Account): Promise<{ clientSecret: string; setupIntentId: string }> {
  const customerId = await ensureCustomer(billing, account);
  const { clientSecret, setupIntentId } = await billing.provider.createSetupIntent({ customerId, idempotencyKey: `setup:${account.id}:${randomUUID()}` });
  return { clientSecret, setupIntentId };
}

/**
 * Confirms a card the browser saved through a setup intent: the intent must be the caller's,
 * succeeded, and have saved exactly this card. The first card becomes the default. A card
 * already on file is kept once: the answer is then the card kept.
 */
export async function addPaymentMethod(
  billing: Billing,
  account: Account,
  input: { setupIntentId: string; paymentMethodId: string },
): Promise<{ paymentMethod: PublicCard }> {
  const customerId = await existingCustomer(billing, account, SETUP_INTENT_NOT_FOUND);
  const setup = await providerCall(() => billing.provider.getSetupIntent(customerId, input.setupIntentId), SETUP_INTENT_NOT_FOUND);
  if (setup.status !== 'succeeded') throw new ApiError('conflict', 'The card has not been confirmed yet');
  if (setup.paymentMethodId !== input.paymentMethodId) throw new ApiError('not_found', PAYMENT_METHOD_NOT_FOUND);
  const before = (await billing.provider.listPaymentMethods(customerId)).find((c) => c.id === input.paymentMethodId);
  if (!before) throw new ApiError('not_found', PAYMENT_METHOD_NOT_FOUND);
  await billing.provider.ensureDefaultPaymentMethod(customerId, input.paymentMethodId);
  const cards = await tidySavedCards(billing, account.id, customerId);
  const card = cards.find((c) => c.id === input.paymentMethodId) ?? cards.find((c) => c.fingerprint !== null && c.fingerprint === before.fingerprint);
  if (!card) throw new ApiError('not_found', PAYMENT_METHOD_NOT_FOUND);
  return { paymentMethod: publicCard(card) };
}
