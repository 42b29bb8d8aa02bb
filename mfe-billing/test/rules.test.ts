import { describe, expect, it } from 'vitest';
import { scaleImagesDaily } from '@aim/shared-kit/domain';
import { cancelButton, fixedPlans, formatMoney, formatUsd, isTrialEligible, planButton, scaleOffer } from '../src/features/subscription/plan-rules.ts';
import { amountChoices, cleanAmountInput, CUSTOM, parseCustomAmount, resolveTopUp, type TopUpCatalog } from '../src/features/top-up/top-up-rules.ts';
import { CARD_MESSAGES, formatCardNumber, formatExpiry, parseExpiry, readCard } from '../src/features/checkout/card-rules.ts';
import { sandboxConfig } from './support/fake-gateway.ts';

const CUSTOM_MESSAGE = 'Enter a valid custom amount (multiples of $10)';
const { plans, topup } = sandboxConfig;

describe('the Scale slider (spec §9)', () => {
  it.each([
    [0.5, 'scale1', 2499, 120000, 500],
    [0.51, 'scale1', 2499, 120000, 510],
    [1, 'scale1', 2499, 120000, 1000],
    [1.01, 'scale2', 4999, 240000, 1010],
    [2, 'scale2', 4999, 240000, 2000],
    [2.01, 'scale3', 9999, 480000, 2010],
    [3.33, 'scale3', 9999, 480000, 3330],
    [4, 'scale3', 9999, 480000, 4000],
  ])('at %s buys %s ($%s, %s credits) and shows %s images daily', (value, plan, price, credits, images) => {
    expect(scaleOffer(plans, value)).toMatchObject({ id: plan, amount: price, credits });
    expect(scaleImagesDaily(value)).toBe(images);
  });

  it('never shows fewer than 500 images daily', () => {
    expect(scaleImagesDaily(0.3)).toBe(500);
  });

  it("takes the tier's price from the catalog, and offers nothing for a tier the catalog lacks", () => {
    const repriced = plans.map((p) => (p.id === 'scale2' ? { ...p, amount: 5555, credits: 250000 } : p));
    expect(scaleOffer(repriced, 1.5)).toMatchObject({ id: 'scale2', amount: 5555, credits: 250000 });
    expect(
      scaleOffer(
        plans.filter((p) => p.id !== 'scale3'),
        3,
      ),
    ).toBeNull();
  });
});

describe('the fixed plan cards (spec §2)', () => {
  it('are Basic, Starter and Growth (Most Popular) from the catalog, in that order', () => {
    expect(fixedPlans([...plans].reverse()).map((p) => [p.id, p.amount, p.popular])).toEqual([
      ['basic', 39, false],
      ['starter', 199, false],
      ['growth', 399, true],
    ]);
    expect(fixedPlans(plans.filter((p) => p.id !== 'starter')).map((p) => p.id)).toEqual(['basic', 'growth']);
  });
});

describe('the plan card button (spec §4)', () => {
  it.each([
    ['no plan', 'basic', { plan: 'zero', next_billing_date: null }, 'Subscribe', false],
    ['no plan, scale card', 'scale2', { plan: 'zero', next_billing_date: null }, 'Subscribe', false],
    ['the current plan', 'growth', { plan: 'growth', next_billing_date: '2027-01-01' }, 'Current Plan', true],
    ['the current plan, cancelled', 'growth', { plan: 'growth', next_billing_date: null }, 'Current Plan', true],
    ['another plan while renewing', 'basic', { plan: 'growth', next_billing_date: '2027-01-01' }, 'Switch plan', false],
    ['another plan after cancelling', 'basic', { plan: 'growth', next_billing_date: null }, 'Subscribe', false],
    ['another scale tier', 'scale3', { plan: 'scale1', next_billing_date: '2027-01-01' }, 'Switch plan', false],
    ['a custom plan holder on Scale', 'scale1', { plan: 'scale-c1', next_billing_date: '2027-01-01' }, 'Switch plan', false],
  ])('%s: %s reads %s', (_case, cardPlan, account, label, disabled) => {
    expect(planButton(cardPlan, account)).toEqual({ label, disabled });
  });
});

describe('the Cancel button (spec §4)', () => {
  it.each([
    [
      { plan: 'zero', next_billing_date: null },
      { label: 'Cancelled', disabled: true },
    ],
    [
      { plan: null, next_billing_date: null },
      { label: 'Cancelled', disabled: true },
    ],
    [
      { plan: 'zero', next_billing_date: '2027-01-01' },
      { label: 'Cancelled', disabled: true },
    ],
    [
      { plan: 'basic', next_billing_date: '2027-01-01' },
      { label: 'Cancel', disabled: false },
    ],
    [
      { plan: 'basic', next_billing_date: null },
      { label: 'Cancelled', disabled: true },
    ],
  ])('%j -> %j', (account, expected) => {
    expect(cancelButton(account)).toEqual(expected);
  });
});

describe('trial eligibility (spec §1)', () => {
  it.each([
    [{ plan: 'zero', next_billing_date: null, trialed: false }, true],
    [{ plan: 'zero', next_billing_date: null, trialed: true }, false],
    [{ plan: 'basic', next_billing_date: '2027-01-01', trialed: false }, false],
    [{ plan: 'basic', next_billing_date: null, trialed: false }, false],
  ])('%j -> %s', (account, eligible) => {
    expect(isTrialEligible(account)).toBe(eligible);
  });
});

describe('the top-up amount (spec §5, §9)', () => {
  it.each([
    ['10', '', 10, 250],
    ['20', '', 20, 500],
    ['50', '', 50, 1250],
    ['100', '', 100, 2500],
    ['200', '', 200, 5000],
    ['500', '', 500, 12500],
    [CUSTOM, '10', 10, 250],
    [CUSTOM, '30', 30, 750],
    [CUSTOM, '1000', 1000, 25000],
  ])('%s (custom %j) buys $%s = %s credits', (choice, custom, usd, credits) => {
    expect(resolveTopUp(choice, custom, topup)).toEqual({ ok: true, usd, credits });
  });

  it.each(['', '0', '5', '25', '105', '10010'])('custom %j is refused with the spec message', (custom) => {
    expect(resolveTopUp(CUSTOM, custom, topup)).toEqual({ ok: false, message: CUSTOM_MESSAGE });
  });

  it("follows the catalog's presets, block, credits and cap", () => {
    const other: TopUpCatalog = { presets: [25, 75], block_dollars: 25, credits_per_block: 700, max_dollars: 100 };
    expect(amountChoices(other)).toEqual([
      { value: '25', label: '$25 → 700 credits' },
      { value: '75', label: '$75 → 2,100 credits' },
      { value: CUSTOM, label: 'Custom amount' },
    ]);
    expect(resolveTopUp('75', '', other)).toEqual({ ok: true, usd: 75, credits: 2100 });
    expect(resolveTopUp('10', '', other)).toEqual({ ok: false, message: 'Enter a valid custom amount (multiples of $25)' });
    expect(parseCustomAmount('50', other)).toEqual({ ok: true, usd: 50 });
    expect(parseCustomAmount('125', other)).toEqual({ ok: false, message: 'Enter a valid custom amount (multiples of $25)' });
  });

  it.each([
    ['$1a0', '10'],
    ['1,000', '1000'],
    ['-20', '20'],
    ['2.5', '25'],
    ['abc', ''],
  ])('keeps only the digits of %j', (typed, kept) => {
    expect(cleanAmountInput(typed)).toBe(kept);
  });
});

describe('the sandbox card form input', () => {
  it.each([
    ['4242424242424242', '4242 4242 4242 4242'],
    ['4000-0025-0000-3155', '4000 0025 0000 3155'],
    ['42', '42'],
    ['12345678901234567890123', '1234 5678 9012 3456 789'],
  ])('formats %j as %j', (typed, shown) => {
    expect(formatCardNumber(typed)).toBe(shown);
  });

  it.each([
    ['1', '1'],
    ['12', '12'],
    ['123', '12 / 3'],
    ['12/30', '12 / 30'],
    ['12 / 305', '12 / 30'],
  ])('formats the expiry %j as %j', (typed, shown) => {
    expect(formatExpiry(typed)).toBe(shown);
  });

  it.each([
    ['12 / 30', { month: 12, year: 2030 }],
    ['01/27', { month: 1, year: 2027 }],
    ['13 / 30', null],
    ['00 / 30', null],
    ['1 / 30', null],
  ])('reads the expiry %j as %j', (typed, expected) => {
    expect(parseExpiry(typed)).toEqual(expected);
  });

  const now = new Date('2026-11-22T12:00:00Z');
  it('turns complete fields into the card to confirm with', () => {
    expect(readCard({ number: '4242 4242 4242 4242', expiry: '11 / 26', cvc: '123', name: ' Ada ' }, now)).toEqual({
      ok: true,
      card: { number: '4242424242424242', exp_month: 11, exp_year: 2026, cvc: '123', name: 'Ada' },
    });
  });

  it.each([
    [{ number: '4242', expiry: '12 / 30', cvc: '123', name: '' }, { number: CARD_MESSAGES.number }],
    [{ number: '4242 4242 4242 4242', expiry: '10 / 26', cvc: '123', name: '' }, { expiry: CARD_MESSAGES.expired }],
    [
      { number: '4242 4242 4242 4242', expiry: '12', cvc: '1', name: '' },
      { expiry: CARD_MESSAGES.expiry, cvc: CARD_MESSAGES.cvc },
    ],
  ])('refuses %j', (fields, errors) => {
    expect(readCard(fields, now)).toEqual({ ok: false, errors });
  });
});

describe('money', () => {
  it.each([
    [39, '$39'],
    [2499, '$2,499'],
    [9.5, '$9.50'],
  ])('a price of %s reads %s', (n, shown) => expect(formatUsd(n)).toBe(shown));
  it.each([
    ['39.00', '$39.00'],
    [10, '$10.00'],
  ])('an invoice amount of %j reads %s', (n, shown) => expect(formatMoney(n)).toBe(shown));
});
