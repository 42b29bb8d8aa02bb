/**
 * @module The sandbox's test cards: Stripe test-mode numbers and what each does on-session
 * (a confirmed payment), on setup (saving a card) and off-session (a charge without the user).
 * Any future expiry and any 3–4 digit CVC work; other numbers are refused.
 */

/** A decline as Stripe reports it: `code`, plus `decline_code` for card_declined. */
export interface Decline {
  code: string;
  declineCode?: string;
  message: string;
}

const DECLINED: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };
const INSUFFICIENT_FUNDS: Decline = { code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' };
const EXPIRED: Decline = { code: 'expired_card', message: 'Your card has expired.' };
const INCORRECT_CVC: Decline = { code: 'incorrect_cvc', message: "Your card's security code is incorrect." };
const PROCESSING_ERROR: Decline = {
  code: 'processing_error',
  message: 'An error occurred while processing your card. Try again in a little bit.',
};
export const AUTHENTICATION_REQUIRED: Decline = {
  code: 'authentication_required',
  message: 'Your card was declined. This transaction requires authentication.',
};
export const AUTHENTICATION_FAILED: Decline = {
  code: 'payment_intent_authentication_failure',
  message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
};

/** ok, a 3-D Secure challenge first, or a decline. */
export type Outcome = 'ok' | '3ds' | Decline;

export interface TestCard {
  /** Stored on the saved payment method instead of the number. */
  profile: string;
  number: string;
  brand: 'visa' | 'mastercard';
  description: string;
  onSession: Outcome;
  /** What happens after an approved 3-D Secure challenge (default: ok). */
  afterChallenge?: Outcome;
  setup: Outcome;
  /** 'if_set_up': succeeds only for a card authenticated when it was saved. */
  offSession: 'ok' | 'if_set_up' | Decline;
}

export const TEST_CARDS: readonly TestCard[] = [
  { profile: 'visa', number: '4242424242424242', brand: 'visa', description: 'Succeeds', onSession: 'ok', setup: 'ok', offSession: 'ok' },
  { profile: 'mastercard', number: '5555555555554444', brand: 'mastercard', description: 'Succeeds', onSession: 'ok', setup: 'ok', offSession: 'ok' },
  {
    profile: 'declined',
    number: '4000000000000002',
    brand: 'visa',
    description: 'Declined (generic_decline)',
    onSession: DECLINED,
    setup: DECLINED,
    offSession: DECLINED,
  },
  {
    profile: 'insufficient_funds',
    number: '4000000000009995',
    brand: 'visa',
    description: 'Declined (insufficient_funds); can be saved, charges fail',
    onSession: INSUFFICIENT_FUNDS,
    setup: 'ok',
    offSession: INSUFFICIENT_FUNDS,
  },
  {
    profile: 'expired_card',
    number: '4000000000000069',
    brand: 'visa',
    description: 'Declined (expired_card)',
    onSession: EXPIRED,
    setup: EXPIRED,
    offSession: EXPIRED,
  },
  {
    profile: 'incorrect_cvc',
    number: '4000000000000127',
    brand: 'visa',
    description: 'Declined (incorrect_cvc)',
    onSession: INCORRECT_CVC,
    setup: INCORRECT_CVC,
    offSession: 'ok',
  },
  {
    profile: 'processing_error',
    number: '4000000000000119',
    brand: 'visa',
    description: 'Declined (processing_error)',
    onSession: PROCESSING_ERROR,
    setup: PROCESSING_ERROR,
    offSession: PROCESSING_ERROR,
  },
  {
    profile: 'charge_declined',
    number: '4000000000000341',
    brand: 'visa',
    description: 'Can be saved; every charge is declined',
    onSession: DECLINED,
    setup: 'ok',
    offSession: DECLINED,
  },
  {
    profile: 'authentication_required',
    number: '4000002500003155',
    brand: 'visa',
    description: '3-D Secure on-session; off-session succeeds once set up',
    onSession: '3ds',
    setup: '3ds',
    offSession: 'if_set_up',
  },
  {
    profile: 'authentication_always',
    number: '4000002760003184',
    brand: 'visa',
    description: '3-D Secure always; off-session fails (authentication_required)',
    onSession: '3ds',
    setup: '3ds',
    offSession: AUTHENTICATION_REQUIRED,
  },
  {
    profile: 'already_set_up',
    number: '4000003800000446',
    brand: 'visa',
    description: 'Already set up: off-session succeeds; on-session needs 3-D Secure',
    onSession: '3ds',
    setup: 'ok',
    offSession: 'ok',
  },
  {
    profile: 'challenge_then_insufficient_funds',
    number: '4000008260003178',
    brand: 'visa',
    description: '3-D Secure, then declined (insufficient_funds)',
    onSession: '3ds',
    afterChallenge: INSUFFICIENT_FUNDS,
    setup: '3ds',
    offSession: INSUFFICIENT_FUNDS,
  },
];

/** The test card with this number (spaces and dashes ignored), or undefined. */
export function findTestCard(number: string): TestCard | undefined {
  const digits = number.replace(/[\s-]/g, '');
  return TEST_CARDS.find((card) => card.number === digits);
}

/** The card behind a stored payment method. */
export function testCardByProfile(profile: string): TestCard {
  const card = TEST_CARDS.find((c) => c.profile === profile);
  if (!card) throw new Error(`unknown sandbox card profile ${profile}`);
  return card;
}
