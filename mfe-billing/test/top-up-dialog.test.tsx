// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TopUpDialogView } from '../src/features/top-up/top-up-dialog.tsx';
import type { BillingAccount } from '../src/gateway/account.ts';
import { apiError, fakeGateway, fakeNotices, makeAccount, sandboxConfig } from './support/fake-gateway.ts';
import { render } from '@aim/shared-kit/testing/render';

afterEach(cleanup);

function setup(account: BillingAccount, gateway = fakeGateway()) {
  const notify = fakeNotices();
  const { user } = render(<TopUpDialogView open onOpenChange={() => undefined} gateway={gateway} account={account} notify={notify} />, { route: '/' });
  return { gateway, notify, user };
}

const subscribed = makeAccount({ plan: 'basic', next_billing_date: '2026-12-22T10:00:00Z' });

describe('the top-up dialog', () => {
  it('buys a preset and shows the card form for it', async () => {
    const { gateway, user } = setup(subscribed);
    await user.selectOptions(await screen.findByLabelText('Amount'), '50');
    expect(screen.getByTestId('top-up-credits').textContent).toBe('You get 1,250 credits.');
    await user.click(screen.getByRole('button', { name: 'Buy 1,250 credits for $50' }));
    expect(gateway.topUp).toHaveBeenCalledWith(50, { idempotencyKey: expect.any(String) });
    expect(await screen.findByRole('button', { name: 'Pay $50' })).toBeTruthy();
  });

  it('keeps only digits of a custom amount and refuses one that is not whole $10 blocks', async () => {
    const { gateway, user } = setup(subscribed);
    await user.selectOptions(await screen.findByLabelText('Amount'), 'custom');
    const input = screen.getByLabelText('Custom amount') as HTMLInputElement;
    await user.type(input, '2a5');
    expect(input.value).toBe('25');
    await user.click(screen.getByRole('button', { name: 'Buy credits' }));
    expect(await screen.findByText('Enter a valid custom amount (multiples of $10)')).toBeTruthy();
    expect(gateway.topUp).not.toHaveBeenCalled();
    await user.clear(input);
    await user.type(input, '30');
    await user.click(screen.getByRole('button', { name: 'Buy 750 credits for $30' }));
    expect(gateway.topUp).toHaveBeenCalledWith(30, { idempotencyKey: expect.any(String) });
  });

  it('notes that buying credits needs a subscription and disables buying without one', async () => {
    setup(makeAccount({ plan: 'zero' }));
    expect((await screen.findByTestId('needs-subscription')).textContent).toContain('An active subscription is needed to buy credits.');
    expect((screen.getByRole('button', { name: 'Buy 250 credits for $10' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('says why auto top-up was turned off, and warns while payments fail before it does', async () => {
    setup(
      makeAccount({
        plan: 'basic',
        auto_topup: false,
        auto_topup_failures: 3,
        auto_topup_disabled_reason: 'Auto top-up was turned off after 3 failed payments: The payment provider could not be reached',
      }),
    );
    expect((await screen.findByTestId('auto-top-up-disabled')).textContent).toContain('after 3 failed payments: The payment provider could not be reached');
    cleanup();
    setup(makeAccount({ plan: 'basic', auto_topup: true, auto_topup_failures: 1 }));
    expect((await screen.findByTestId('auto-top-up-failing')).textContent).toBe(
      'The last auto top-up payment failed. It turns off after 3 failures in a row: check your default card under Payment Methods.',
    );
    expect(screen.queryByTestId('auto-top-up-disabled')).toBeNull();
  });

  it('saves auto top-up settings, and says so when that fails', async () => {
    const saveAutoTopUp = vi.fn().mockResolvedValueOnce(undefined).mockRejectedValueOnce(apiError('Add a payment method before turning on auto top-up'));
    const { notify, user } = setup(subscribed, fakeGateway({ saveAutoTopUp }));
    await user.click(await screen.findByLabelText('Auto top-up'));
    await user.selectOptions(screen.getByLabelText('When credits fall below'), '1250');
    const amount = screen.getByLabelText('Top up with') as HTMLInputElement;
    await user.clear(amount);
    await user.type(amount, '40');
    await user.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() =>
      expect(saveAutoTopUp).toHaveBeenCalledWith({ auto_topup: true, auto_topup_min: 1250, auto_topup_amount: 40 }, { idempotencyKey: expect.any(String) }),
    );
    expect(await screen.findByTestId('auto-top-up-saved')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith('Failed to save settings', 'Add a payment method before turning on auto top-up'));
  });

  it('refuses an auto top-up amount that is not whole $10 blocks', async () => {
    const { gateway, user } = setup(subscribed);
    const amount = (await screen.findByLabelText('Top up with')) as HTMLInputElement;
    await user.clear(amount);
    await user.type(amount, '15');
    await user.click(screen.getByRole('button', { name: 'Save settings' }));
    expect(await screen.findByText('Enter a valid custom amount (multiples of $10)')).toBeTruthy();
    expect(gateway.saveAutoTopUp).not.toHaveBeenCalled();
  });

  it("offers the server catalog's amounts, block, thresholds and defaults: a changed catalog changes the dialog", async () => {
    const config = {
      ...sandboxConfig,
      topup: { presets: [25, 75], block_dollars: 25, credits_per_block: 700, max_dollars: 1000 },
      auto_topup: { thresholds: [100, 300], default_min: 300, default_amount: 50 },
    };
    const topUp = vi.fn(async (usd: number) => ({ clientSecret: 'pi_sbx_2_secret_x', amount: usd, credits: (usd / 25) * 700 }));
    const { gateway, user } = setup(
      makeAccount({ plan: 'basic', auto_topup_min: null, auto_topup_amount: null }),
      fakeGateway({ config: vi.fn(async () => config), topUp }),
    );
    const select = await screen.findByLabelText('Amount');
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['$25 → 700 credits', '$75 → 2,100 credits', 'Custom amount']);
    expect(screen.getByTestId('top-up-credits').textContent).toBe('You get 700 credits.');
    await user.selectOptions(select, 'custom');
    expect(screen.getByText('$25 buys 700 credits.')).toBeTruthy();
    const custom = screen.getByLabelText('Custom amount');
    await user.type(custom, '30');
    await user.click(screen.getByRole('button', { name: 'Buy credits' }));
    expect(await screen.findByText('Enter a valid custom amount (multiples of $25)')).toBeTruthy();
    await user.clear(custom);
    await user.type(custom, '50');
    await user.click(screen.getByRole('button', { name: 'Buy 1,400 credits for $50' }));
    expect(gateway.topUp).toHaveBeenCalledWith(50, { idempotencyKey: expect.any(String) });
    expect(await screen.findByRole('button', { name: 'Pay $50' })).toBeTruthy();
    cleanup();

    setup(makeAccount({ plan: 'basic', auto_topup_min: null, auto_topup_amount: null }), fakeGateway({ config: vi.fn(async () => config) }));
    const threshold = (await screen.findByLabelText('When credits fall below')) as HTMLSelectElement;
    expect(
      within(threshold)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['100 credits', '300 credits']);
    expect(threshold.value).toBe('300');
    expect((screen.getByLabelText('Top up with') as HTMLInputElement).value).toBe('50');
    expect(screen.getByText('1,400 credits, in $25 blocks')).toBeTruthy();
  });

  it('shows a skeleton while the catalog loads, and a retry when it cannot be read', async () => {
    let fail!: (e: Error) => void;
    const config = vi
      .fn()
      .mockReturnValueOnce(new Promise((_, reject) => (fail = reject)))
      .mockResolvedValue(sandboxConfig);
    const { user } = setup(subscribed, fakeGateway({ config }));
    expect(await screen.findByTestId('top-up-loading')).toBeTruthy();
    fail(new Error('down'));
    const error = await screen.findByTestId('top-up-error');
    expect(error.textContent).toContain('Billing is unavailable right now.');
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByLabelText('Amount')).toBeTruthy();
    expect(config).toHaveBeenCalledTimes(2);
  });
});
