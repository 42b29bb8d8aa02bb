// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SubscriptionPage } from '../src/features/subscription/subscription-page.tsx';
import { TEXTS } from '../src/notices.ts';
import type { BillingAccount } from '../src/gateway/account.ts';
import { apiError, fakeGateway, fakeNotices, makeAccount } from './support/fake-gateway.ts';
import { renderUi } from './support/render.tsx';

afterEach(cleanup);

function setup(account: BillingAccount | null, gateway = fakeGateway(), status: 'loading' | 'ready' | 'error' = 'ready') {
  const notify = fakeNotices();
  const user = renderUi(<SubscriptionPage gateway={gateway} account={account} status={status} notify={notify} />);
  return { gateway, notify, user };
}

const buttonOf = (plan: string) => within(screen.getByTestId(`plan-card-${plan}`)).getByRole('button');

describe('the Subscription page', () => {
  it('shows a skeleton while the account loads and a message when it cannot', () => {
    setup(null, fakeGateway(), 'loading');
    expect(screen.getByTestId('subscription-loading')).toBeTruthy();
    cleanup();
    setup(null, fakeGateway(), 'error');
    expect(screen.getByTestId('subscription-error')).toBeTruthy();
  });

  it('shows a user without a plan as free, offers the trial and Subscribe on every card', () => {
    setup(makeAccount({ credits: 1234 }));
    expect(screen.getByTestId('usage-credits').textContent).toBe('1,234');
    expect(screen.getByTestId('current-plan').textContent).toBe('free');
    expect(screen.getByTestId('next-billing-date').textContent).toBe('—');
    expect(screen.getByTestId('account-email').textContent).toBe('ada@example.com');
    expect(screen.queryByTestId('cancel-subscription')).toBeNull();
    expect(screen.getByTestId('trial-offer')).toBeTruthy();
    expect(screen.getByTestId('subscription-note').textContent).toBe(TEXTS.needsSubscription);
    for (const plan of ['basic', 'starter', 'growth', 'scale']) expect(buttonOf(plan).textContent).toBe('Subscribe');
    expect(within(screen.getByTestId('plan-card-growth')).getByText('Most Popular')).toBeTruthy();
    expect(screen.getByTestId('scale-images-daily').textContent).toBe('1,000 images daily');
  });

  it('marks the current plan, offers Switch plan elsewhere and Cancel, and no trial', () => {
    setup(makeAccount({ plan: 'growth', next_billing_date: '2026-12-22T10:00:00Z', trialed: false }));
    expect(screen.getByTestId('current-plan').textContent).toBe('growth');
    expect(screen.getByTestId('next-billing-date').textContent).toBe('Dec 22, 2026');
    expect(buttonOf('growth').textContent).toBe('Current Plan');
    expect((buttonOf('growth') as HTMLButtonElement).disabled).toBe(true);
    expect(buttonOf('basic').textContent).toBe('Switch plan');
    expect(screen.getByTestId('cancel-subscription').textContent).toBe('Cancel');
    expect(screen.queryByTestId('trial-offer')).toBeNull();
  });

  it('shows a cancelled subscription as a disabled Cancelled', () => {
    setup(makeAccount({ plan: 'basic', next_billing_date: null }));
    const cancel = screen.getByTestId('cancel-subscription') as HTMLButtonElement;
    expect(cancel.textContent).toBe('Cancelled');
    expect(cancel.disabled).toBe(true);
    expect(buttonOf('starter').textContent).toBe('Subscribe');
  });

  it('does not offer the trial to a user who already had it', () => {
    setup(makeAccount({ trialed: true }));
    expect(screen.queryByTestId('trial-offer')).toBeNull();
  });

  it('opens the sandbox card form for the chosen plan', async () => {
    const { gateway, user } = setup(makeAccount());
    await user.click(buttonOf('starter'));
    expect(gateway.subscribe).toHaveBeenCalledWith('starter');
    const dialog = await screen.findByTestId('checkout-dialog');
    expect(within(dialog).getByText('Subscribe to Starter')).toBeTruthy();
    expect(within(dialog).getByTestId('sandbox-badge')).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Pay $199' })).toBeTruthy();
  });

  it("says 'Unable to start checkout' with the server's reason when a checkout cannot start", async () => {
    const gateway = fakeGateway({ subscribe: vi.fn().mockRejectedValue(apiError('You are already subscribed to this plan')) });
    const { notify, user } = setup(makeAccount(), gateway);
    await user.click(buttonOf('basic'));
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith('Unable to start checkout', 'You are already subscribed to this plan'));
    expect(screen.queryByTestId('checkout-dialog')).toBeNull();
  });

  it('cancels after confirmation, and alerts the spec text when that fails', async () => {
    const gateway = fakeGateway({ cancel: vi.fn().mockRejectedValue(apiError('There is no active subscription to cancel')) });
    const { notify, user } = setup(makeAccount({ plan: 'basic', next_billing_date: '2026-12-22T10:00:00Z' }), gateway);
    await user.click(screen.getByTestId('cancel-subscription'));
    await user.click(await screen.findByRole('button', { name: 'Cancel subscription' }));
    await waitFor(() => expect(notify.alert).toHaveBeenCalledWith('An unexpected error occured, please refresh and try again.'));
    expect(gateway.cancel).toHaveBeenCalledTimes(1);
  });
});
