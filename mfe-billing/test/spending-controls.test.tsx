// @vitest-environment jsdom
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TopUpDialogView } from '../src/features/top-up/top-up-dialog.tsx';
import { formOf, parseSpendingForm } from '../src/features/top-up/spending-controls-rules.ts';
import type { BillingGateway } from '../src/gateway/billing-gateway.ts';
import { apiError, fakeGateway, fakeNotices, makeAccount, spendingLimits } from './support/fake-gateway.ts';
import { render } from '@aim/shared-kit/testing/render';

afterEach(cleanup);

function setup(gateway: BillingGateway = fakeGateway()) {
  const notify = fakeNotices();
  const { user } = render(<TopUpDialogView open onOpenChange={() => undefined} gateway={gateway} account={makeAccount({ plan: 'basic' })} notify={notify} />, {
    route: '/',
  });
  return { gateway, notify, user };
}

const input = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

describe('the spending controls form rules', () => {
  const valid = { monthly_spend_limit: '', auto_topup_max_per_day: '3', auto_topup_monthly_cap: '500', low_balance_alert_at: '' };

  it.each([
    [{}, { monthly_spend_limit: null, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500, low_balance_alert_at: null }],
    [
      { monthly_spend_limit: '1000', low_balance_alert_at: '250', auto_topup_max_per_day: '20', auto_topup_monthly_cap: '10' },
      { monthly_spend_limit: 1000, auto_topup_max_per_day: 20, auto_topup_monthly_cap: 10, low_balance_alert_at: 250 },
    ],
    [{ monthly_spend_limit: ' 10 ' }, { monthly_spend_limit: 10, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500, low_balance_alert_at: null }],
  ])('accepts %j', (over, input) => {
    expect(parseSpendingForm({ ...valid, ...over })).toEqual({ ok: true, input });
  });

  it.each([
    ['monthly_spend_limit', '9', 'Enter whole dollars from $10 to $1,000,000, or leave empty for no limit'],
    ['monthly_spend_limit', '1000001', 'Enter whole dollars from $10 to $1,000,000, or leave empty for no limit'],
    ['auto_topup_max_per_day', '0', 'Enter a whole number from 1 to 20'],
    ['auto_topup_max_per_day', '21', 'Enter a whole number from 1 to 20'],
    ['auto_topup_max_per_day', '', 'Enter a whole number from 1 to 20'],
    ['auto_topup_monthly_cap', '', 'Enter whole dollars from $10 to $1,000,000'],
    ['auto_topup_monthly_cap', '5', 'Enter whole dollars from $10 to $1,000,000'],
    ['low_balance_alert_at', '0', 'Enter whole credits from 1 to 10,000,000, or leave empty to turn the alert off'],
    ['low_balance_alert_at', '10000001', 'Enter whole credits from 1 to 10,000,000, or leave empty to turn the alert off'],
  ])('refuses %s = %j', (field, value, message) => {
    expect(parseSpendingForm({ ...valid, [field]: value })).toEqual({ ok: false, errors: { [field]: message } });
  });

  it('shows null as an empty field', () => {
    expect(formOf(spendingLimits({ monthly_spend_limit: null, low_balance_alert_at: 40 }))).toEqual({
      monthly_spend_limit: '',
      auto_topup_max_per_day: '3',
      auto_topup_monthly_cap: '500',
      low_balance_alert_at: '40',
    });
  });
});

describe('the spending controls in the top-up dialog', () => {
  it('shows the saved limits with their defaults and this month’s usage, and keeps the dialog’s own parts', async () => {
    setup(
      fakeGateway({
        spendingLimits: vi.fn(async () =>
          spendingLimits({ monthly_spend_limit: 1000, usage: { month_spend: 120, auto_topup_month: 40, auto_topups_today: 2 } }),
        ),
      }),
    );
    expect((await screen.findByLabelText('Monthly spending limit')) as HTMLInputElement).toBeTruthy();
    expect(input('Monthly spending limit').value).toBe('1000');
    expect(input('Auto top-ups per day').value).toBe('3');
    expect(input('Auto top-up monthly cap').value).toBe('500');
    expect(input('Email me when credits fall below').value).toBe('');
    expect(screen.getByText('Default: no limit. $120 used this month.')).toBeTruthy();
    expect(screen.getByText('Default: 3. 2 today.')).toBeTruthy();
    expect(screen.getByText('Default: $500. $40 this month.')).toBeTruthy();
    expect(screen.getByText('Default: off. One email per drop below it.')).toBeTruthy();
    // the dialog's spec parts are still there
    expect(screen.getByLabelText('Amount')).toBeTruthy();
    expect(screen.getByLabelText('Auto top-up')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save settings' })).toBeTruthy();
  });

  it('says why the last auto top-up and top-up were refused', async () => {
    setup(
      fakeGateway({
        spendingLimits: vi.fn(async () =>
          spendingLimits({
            last_refusal: {
              auto_topup: {
                amount: 20,
                reason: 'monthly_spend_limit',
                message: 'Monthly spending limit of $100 reached: $90 already charged or pending this month, so the $20 auto top-up would go over it.',
                created_at: '2026-11-28T10:00:00.000Z',
              },
              topup: null,
            },
          }),
        ),
      }),
    );
    expect((await screen.findByTestId('auto-top-up-refused')).textContent).toBe(
      'Last auto top-up refused: Monthly spending limit of $100 reached: $90 already charged or pending this month, so the $20 auto top-up would go over it.',
    );
    expect(screen.queryByTestId('top-up-refused')).toBeNull();
  });

  it('validates each field, saves through the API and shows what the server saved', async () => {
    const saveSpendingLimits = vi.fn(async () => spendingLimits({ monthly_spend_limit: 200, auto_topup_max_per_day: 5, low_balance_alert_at: 300 }));
    const { user } = setup(fakeGateway({ saveSpendingLimits }));
    await user.type(await screen.findByLabelText('Monthly spending limit'), '5');
    await user.clear(input('Auto top-ups per day'));
    await user.type(input('Auto top-ups per day'), '25');
    await user.click(screen.getByRole('button', { name: 'Save limits' }));
    expect(await screen.findByText('Enter whole dollars from $10 to $1,000,000, or leave empty for no limit')).toBeTruthy();
    expect(screen.getByText('Enter a whole number from 1 to 20')).toBeTruthy();
    expect(saveSpendingLimits).not.toHaveBeenCalled();

    await user.clear(input('Monthly spending limit'));
    await user.type(input('Monthly spending limit'), '2x00');
    expect(input('Monthly spending limit').value).toBe('200');
    await user.clear(input('Auto top-ups per day'));
    await user.type(input('Auto top-ups per day'), '5');
    await user.type(input('Email me when credits fall below'), '300');
    await user.click(screen.getByRole('button', { name: 'Save limits' }));
    await waitFor(() =>
      expect(saveSpendingLimits).toHaveBeenCalledWith({
        monthly_spend_limit: 200,
        auto_topup_max_per_day: 5,
        auto_topup_monthly_cap: 500,
        low_balance_alert_at: 300,
      }),
    );
    expect(await screen.findByTestId('spending-controls-saved')).toBeTruthy();
    expect(screen.getByTestId('low-balance-alert-on').textContent).toBe('Alert on: below 300 credits.');
  });

  it('says so when saving fails, and offers a retry when the limits cannot be read', async () => {
    const { notify, user } = setup(fakeGateway({ saveSpendingLimits: vi.fn().mockRejectedValue(apiError('Invalid dashboard session', 401)) }));
    await user.click(await screen.findByRole('button', { name: 'Save limits' }));
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith('Failed to save settings', 'Invalid dashboard session'));
    cleanup();

    const read = vi.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValueOnce(spendingLimits());
    const second = setup(fakeGateway({ spendingLimits: read }));
    await second.user.click(await screen.findByRole('button', { name: 'Retry' }));
    expect(await screen.findByLabelText('Monthly spending limit')).toBeTruthy();
    expect(read).toHaveBeenCalledTimes(2);
  });
});
