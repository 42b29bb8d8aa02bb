// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SubscriptionPage } from '../src/features/subscription/subscription-page.tsx';
import { TEXTS } from '../src/notices.ts';
import type { BillingAccount } from '../src/gateway/account.ts';
import { apiError, fakeGateway, fakeNotices, makeAccount, sandboxConfig } from './support/fake-gateway.ts';
import { render } from '@aim/shared-kit/testing/render';

afterEach(cleanup);

function setup(account: BillingAccount | null, gateway = fakeGateway(), status: 'loading' | 'ready' | 'error' = 'ready') {
  const notify = fakeNotices();
  const { user } = render(<SubscriptionPage gateway={gateway} account={account} status={status} notify={notify} />, { route: '/' });
  return { gateway, notify, user };
}

const buttonOf = (plan: string) => within(screen.getByTestId(`plan-card-${plan}`)).getByRole('button');
const cardsLoaded = () => screen.findByTestId('plan-cards');

describe('the Subscription page', () => {
  it('shows a skeleton while the account loads and a message when it cannot', () => {
    setup(null, fakeGateway(), 'loading');
    expect(screen.getByTestId('subscription-loading')).toBeTruthy();
    cleanup();
    setup(null, fakeGateway(), 'error');
    expect(screen.getByTestId('subscription-error')).toBeTruthy();
  });

  it('shows a user without a plan as free, a disabled Cancelled, the trial and Subscribe on every card', async () => {
    setup(makeAccount({ credits: 1234 }));
    expect(screen.getByTestId('usage-credits').textContent).toBe('1,234');
    expect(screen.getByTestId('current-plan').textContent).toBe('free');
    expect(screen.getByTestId('next-billing-date').textContent).toBe('—');
    expect(screen.getByTestId('account-email').textContent).toBe('ada@example.com');
    const cancel = screen.getByTestId('cancel-subscription') as HTMLButtonElement;
    expect(cancel.textContent).toBe('Cancelled');
    expect(cancel.disabled).toBe(true);
    await cardsLoaded();
    expect(screen.getByTestId('trial-offer').textContent).toContain('Try it for 7 days$10 once, with 250 credits');
    expect(screen.getByTestId('subscription-note').textContent).toBe(TEXTS.needsSubscription);
    for (const plan of ['basic', 'starter', 'growth', 'scale']) expect(buttonOf(plan).textContent).toBe('Subscribe');
    expect(within(screen.getByTestId('plan-card-growth')).getByText('Most Popular')).toBeTruthy();
    expect(screen.getByTestId('scale-images-daily').textContent).toBe('1,000 images daily');
  });

  it('marks the current plan, offers Switch plan elsewhere and Cancel, and no trial', async () => {
    setup(makeAccount({ plan: 'growth', next_billing_date: '2026-12-22T10:00:00Z', trialed: false }));
    await cardsLoaded();
    expect(screen.getByTestId('current-plan').textContent).toBe('growth');
    expect(screen.getByTestId('next-billing-date').textContent).toBe('Dec 22, 2026');
    expect(buttonOf('growth').textContent).toBe('Current Plan');
    expect((buttonOf('growth') as HTMLButtonElement).disabled).toBe(true);
    expect(buttonOf('basic').textContent).toBe('Switch plan');
    expect(screen.getByTestId('cancel-subscription').textContent).toBe('Cancel');
    expect(screen.queryByTestId('trial-offer')).toBeNull();
  });

  it('shows a cancelled subscription as a disabled Cancelled', async () => {
    setup(makeAccount({ plan: 'basic', next_billing_date: null }));
    await cardsLoaded();
    const cancel = screen.getByTestId('cancel-subscription') as HTMLButtonElement;
    expect(cancel.textContent).toBe('Cancelled');
    expect(cancel.disabled).toBe(true);
    expect(buttonOf('starter').textContent).toBe('Subscribe');
  });

  it('does not offer the trial to a user who already had it', async () => {
    setup(makeAccount({ trialed: true }));
    await cardsLoaded();
    expect(screen.queryByTestId('trial-offer')).toBeNull();
  });

  it('opens the sandbox card form for the chosen plan', async () => {
    const { gateway, user } = setup(makeAccount());
    await cardsLoaded();
    await user.click(buttonOf('starter'));
    expect(gateway.subscribe).toHaveBeenCalledWith('starter', { idempotencyKey: expect.any(String) });
    const dialog = await screen.findByTestId('checkout-dialog');
    expect(within(dialog).getByText('Subscribe to Starter')).toBeTruthy();
    expect(within(dialog).getByTestId('sandbox-badge')).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Pay $199' })).toBeTruthy();
  });

  it("says 'Unable to start checkout' with the server's reason when a checkout cannot start", async () => {
    const gateway = fakeGateway({ subscribe: vi.fn().mockRejectedValue(apiError('You are already subscribed to this plan')) });
    const { notify, user } = setup(makeAccount(), gateway);
    await cardsLoaded();
    await user.click(buttonOf('basic'));
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith('Unable to start checkout', 'You are already subscribed to this plan'));
    expect(screen.queryByTestId('checkout-dialog')).toBeNull();
  });

  it('sends one idempotency key per plan choice, the same again when that choice is retried after a failure', async () => {
    const subscribe = vi
      .fn()
      .mockRejectedValueOnce(apiError('busy'))
      .mockRejectedValueOnce(apiError('busy'))
      .mockResolvedValue({ clientSecret: 'pi_1_secret' });
    const { notify, user } = setup(makeAccount(), fakeGateway({ subscribe }));
    await cardsLoaded();
    await user.click(buttonOf('basic'));
    await waitFor(() => expect(notify.error).toHaveBeenCalledTimes(1));
    await user.click(buttonOf('basic'));
    await waitFor(() => expect(notify.error).toHaveBeenCalledTimes(2));
    await user.click(buttonOf('starter'));
    await screen.findByTestId('checkout-dialog');
    const keys = subscribe.mock.calls.map(([, action]) => action.idempotencyKey);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('cancels after confirmation, and alerts the spec text when that fails', async () => {
    const gateway = fakeGateway({ cancel: vi.fn().mockRejectedValue(apiError('There is no active subscription to cancel')) });
    const { notify, user } = setup(makeAccount({ plan: 'basic', next_billing_date: '2026-12-22T10:00:00Z' }), gateway);
    await user.click(screen.getByTestId('cancel-subscription'));
    await user.click(await screen.findByRole('button', { name: 'Cancel subscription' }));
    await waitFor(() => expect(notify.alert).toHaveBeenCalledWith('An unexpected error occured, please refresh and try again.'));
    expect(gateway.cancel).toHaveBeenCalledTimes(1);
  });

  it("shows the server catalog's plans, prices and trial: a changed catalog changes the page", async () => {
    const config = {
      ...sandboxConfig,
      plans: sandboxConfig.plans.map((p) =>
        p.id === 'basic' ? { ...p, label: 'Basic Plus', amount: 49, credits: 1500 } : p.id === 'scale1' ? { ...p, amount: 2222, credits: 100000 } : p,
      ),
      trial: { amount: 15, credits: 400, days: 14 },
    };
    const { gateway, user } = setup(makeAccount(), fakeGateway({ config: vi.fn(async () => config) }));
    const basic = within(await screen.findByTestId('plan-card-basic'));
    expect(basic.getByText('Basic Plus')).toBeTruthy();
    expect(basic.getByTestId('plan-price').textContent).toBe('$49');
    expect(basic.getByText('1,500 credits every month')).toBeTruthy();
    const scale = within(screen.getByTestId('plan-card-scale'));
    expect(scale.getByTestId('plan-price').textContent).toBe('$2,222');
    expect(scale.getByTestId('scale-tier').textContent).toBe('Scale 1: 100,000 credits every month');
    expect(within(screen.getByTestId('plan-card-growth')).getByTestId('plan-price').textContent).toBe('$399');
    const trial = screen.getByTestId('trial-offer');
    expect(trial.textContent).toContain('Try it for 14 days$15 once, with 400 credits');
    expect(within(trial).getByRole('button').textContent).toBe('Start 14-day trial');

    await user.click(buttonOf('basic'));
    expect(gateway.subscribe).toHaveBeenCalledWith('basic', { idempotencyKey: expect.any(String) });
    const dialog = await screen.findByTestId('checkout-dialog');
    expect(within(dialog).getByText('Subscribe to Basic Plus')).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Pay $49' })).toBeTruthy();
  });

  it('shows skeleton cards while the catalog loads, and a retry when it cannot be read', async () => {
    let fail!: (e: Error) => void;
    const config = vi
      .fn()
      .mockReturnValueOnce(new Promise((_, reject) => (fail = reject)))
      .mockResolvedValue(sandboxConfig);
    const { user } = setup(makeAccount(), fakeGateway({ config }));
    expect(screen.getByTestId('plans-loading')).toBeTruthy();
    expect(screen.queryByTestId('plan-cards')).toBeNull();
    expect(screen.queryByTestId('trial-offer')).toBeNull();
    fail(new Error('down'));
    const error = await screen.findByTestId('plans-error');
    expect(error.textContent).toContain('The plans and prices could not be loaded.');
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    expect(
      within(await cardsLoaded())
        .getAllByTestId('plan-price')
        .map((el) => el.textContent),
    ).toEqual(['$39', '$199', '$399', '$2,499']);
    expect(screen.queryByTestId('plans-error')).toBeNull();
    expect(config).toHaveBeenCalledTimes(2);
  });
});
