import { describe, expect, it } from 'vitest';
import { accountHoldOf, PAYMENT_METHODS_PATH } from '../src/features/frame/account-hold.ts';

describe('account hold banner state', () => {
  it('should name the most pressing hold: a dispute, then a negative balance, then a past-due renewal', () => {
    expect(accountHoldOf({ openDispute: true, credits: -5, subscriptionStatus: 'past_due' })).toBe('dispute');
    expect(accountHoldOf({ openDispute: false, credits: -5, subscriptionStatus: 'past_due' })).toBe('negative_balance');
    expect(accountHoldOf({ openDispute: false, credits: 0, subscriptionStatus: 'past_due' })).toBe('past_due');
    expect(accountHoldOf({ openDispute: false, credits: 10, subscriptionStatus: 'active' })).toBeNull();
    expect(accountHoldOf({ openDispute: false, credits: 0, subscriptionStatus: null })).toBeNull();
  });

  it('should send a past-due user to the payment methods screen of the route table', () => {
    expect(PAYMENT_METHODS_PATH).toBe('/dashboard/billing/payment-methods');
  });
});
