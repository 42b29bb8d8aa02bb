/**
 * @module The saved cards after anything that may have added or removed one: one card per
 * card number (the provider's fingerprint), so paying with a card already on file does not
 * list it twice, and the account's has_default_card mirror, which the database checks when
 * the dashboard turns auto top-up on by a direct write.
 */
import { ProviderError, type Card } from '../../billing/payment-provider.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import type { Billing } from './billing.ts';

/**
 * The cards to detach so each card number is saved once, and the one kept in their place:
 * the latest expiry (a re-issued card), then the default, then the oldest.
 *
 * @example
 * duplicateCards([visaOld, mastercard, visaAgain]) // [{ keep: visaOld, drop: [visaAgain] }]
 */
function duplicateCards(cards: Card[]): { keep: Card; drop: Card[] }[] {
  const groups = new Map<string, Card[]>();
  for (const card of cards) {
    if (!card.fingerprint) continue;
    groups.set(card.fingerprint, [...(groups.get(card.fingerprint) ?? []), card]);
  }
  const expiry = (c: Card) => c.exp_year * 12 + c.exp_month;
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group) => {
      const [keep, ...drop] = group
        .map((card, index) => ({ card, index }))
        .sort((a, b) => expiry(b.card) - expiry(a.card) || Number(b.card.default) - Number(a.card.default) || a.index - b.index)
        .map((x) => x.card);
      return { keep, drop };
    });
}

/** Detaches duplicate cards (moving the default to the one kept) and mirrors has_default_card; answers the cards. */
export async function tidySavedCards(billing: Billing, userId: string, customerId: string): Promise<Card[]> {
  let cards = await billing.provider.listPaymentMethods(customerId);
  const duplicates = duplicateCards(cards);
  for (const { keep, drop } of duplicates) {
    if (drop.some((c) => c.default)) await billing.provider.setDefaultPaymentMethod(customerId, keep.id);
    for (const card of drop) {
      try {
        await billing.provider.detachPaymentMethod(customerId, card.id);
      } catch (e) {
        // detached by a concurrent tidy-up: the same card is kept either way
        if (!(e instanceof ProviderError && e.code === 'resource_missing')) throw e;
      }
    }
  }
  if (duplicates.length) cards = await billing.provider.listPaymentMethods(customerId);
  await billingRepository(billing.db).setHasDefaultCard(
    userId,
    cards.some((c) => c.default),
  );
  return cards;
}
