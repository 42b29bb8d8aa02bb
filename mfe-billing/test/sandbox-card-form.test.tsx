// @vitest-environment jsdom
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxCardForm } from '../src/features/checkout/sandbox-card-form.tsx';
import { TEXTS } from '../src/notices.ts';
import type { BillingGateway } from '../src/gateway/billing-gateway.ts';
import { apiError, confirmed, fakeGateway } from './support/fake-gateway.ts';
import type { UserEvent } from '@testing-library/user-event';
import { render } from '@aim/shared-kit/testing/render';

afterEach(cleanup);

const intent = { kind: 'payment' as const, clientSecret: 'pi_sbx_1_secret_x' };

function setup(sandboxConfirm: ReturnType<typeof vi.fn>) {
  const gateway = fakeGateway({ sandboxConfirm: sandboxConfirm as BillingGateway['sandboxConfirm'] });
  const onSucceeded = vi.fn();
  const onFailed = vi.fn();
  const { user } = render(<SandboxCardForm gateway={gateway} intent={intent} submitLabel="Pay $39" onSucceeded={onSucceeded} onFailed={onFailed} />, {
    route: '/',
  });
  return { gateway, onSucceeded, onFailed, user };
}

async function fillCard(user: UserEvent, number: string) {
  await user.type(screen.getByLabelText('Card number'), number);
  await user.type(screen.getByLabelText('Expiry'), '1230');
  await user.type(screen.getByLabelText('CVC'), '123');
  await user.click(screen.getByRole('button', { name: 'Pay $39' }));
}

describe('the sandbox card form', () => {
  it('shows the SANDBOX badge and the three test-card hints, and a hint fills the number', async () => {
    const { user } = setup(vi.fn());
    expect(screen.getByTestId('sandbox-badge').textContent).toBe('SANDBOX');
    const hints = screen.getByTestId('sandbox-hints').textContent;
    for (const text of ['4242 4242 4242 4242 succeeds', '4000 0000 0000 0002 is declined', '4000 0025 0000 3155 asks for 3-D Secure'])
      expect(hints).toContain(text);
    await user.click(screen.getByRole('button', { name: 'Use test card 4000 0025 0000 3155' }));
    expect((screen.getByLabelText('Card number') as HTMLInputElement).value).toBe('4000 0025 0000 3155');
  });

  it('confirms a good card once and reports the saved payment method', async () => {
    const sandboxConfirm = vi.fn(async () => confirmed('succeeded'));
    const { onSucceeded, user } = setup(sandboxConfirm);
    await fillCard(user, '4242424242424242');
    await waitFor(() => expect(onSucceeded).toHaveBeenCalledWith({ intentId: 'pi_sbx_1', paymentMethodId: 'pm_sbx_1' }));
    expect(sandboxConfirm).toHaveBeenCalledTimes(1);
    expect(sandboxConfirm).toHaveBeenCalledWith({
      clientSecret: intent.clientSecret,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123', name: null },
    });
  });

  it('sends nothing while a field is incomplete', async () => {
    const sandboxConfirm = vi.fn();
    const { user } = setup(sandboxConfirm);
    await user.click(screen.getByRole('button', { name: 'Pay $39' }));
    expect(await screen.findByText('Enter a complete card number')).toBeTruthy();
    expect(sandboxConfirm).not.toHaveBeenCalled();
  });

  it('shows a decline and lets the user try another card', async () => {
    const sandboxConfirm = vi
      .fn()
      .mockResolvedValueOnce(
        confirmed('requires_payment_method', { error: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } }),
      )
      .mockResolvedValueOnce(confirmed('succeeded'));
    const { onSucceeded, onFailed, user } = setup(sandboxConfirm);
    await fillCard(user, '4000000000000002');
    expect((await screen.findByTestId('payment-error')).textContent).toBe('Your card was declined.');
    expect(onFailed).toHaveBeenCalledWith('Your card was declined.');
    await user.clear(screen.getByLabelText('Card number'));
    await user.type(screen.getByLabelText('Card number'), '4242424242424242');
    await user.click(screen.getByRole('button', { name: 'Pay $39' }));
    await waitFor(() => expect(onSucceeded).toHaveBeenCalledTimes(1));
  });

  it.each([
    ['approve', confirmed('succeeded'), true],
    [
      'fail',
      confirmed('requires_payment_method', {
        error: { code: 'payment_intent_authentication_failure', message: 'We are unable to authenticate your payment method.' },
      }),
      false,
    ],
  ] as const)('asks for 3-D Secure and answers %s', async (answer, result, succeeds) => {
    const sandboxConfirm = vi.fn().mockResolvedValueOnce(confirmed('requires_action')).mockResolvedValueOnce(result);
    const { onSucceeded, user } = setup(sandboxConfirm);
    await fillCard(user, '4000002500003155');
    expect(await screen.findByTestId('sandbox-3ds')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: answer === 'approve' ? 'Complete authentication' : 'Fail authentication' }));
    expect(sandboxConfirm).toHaveBeenLastCalledWith({ clientSecret: intent.clientSecret, threeDSecure: answer });
    if (succeeds) await waitFor(() => expect(onSucceeded).toHaveBeenCalledTimes(1));
    else expect((await screen.findByTestId('payment-error')).textContent).toBe('We are unable to authenticate your payment method.');
  });

  it("shows the server's reason, or the default text, when the confirmation call fails", async () => {
    const sandboxConfirm = vi.fn().mockRejectedValueOnce(apiError('sandbox accepts test cards only', 400)).mockRejectedValueOnce(new Error('network'));
    const { user } = setup(sandboxConfirm);
    await fillCard(user, '4111111111111111');
    expect((await screen.findByTestId('payment-error')).textContent).toBe('sandbox accepts test cards only');
    await user.click(screen.getByRole('button', { name: 'Pay $39' }));
    await waitFor(() => expect(screen.getByTestId('payment-error').textContent).toBe(TEXTS.unexpected));
  });
});
