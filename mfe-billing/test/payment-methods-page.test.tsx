// @vitest-environment jsdom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PaymentMethodsPage } from '../src/features/payment-methods/payment-methods-page.tsx';
import { apiError, card, confirmed, fakeGateway, fakeNotices, sandboxConfig } from './support/fake-gateway.ts';
import { render } from '@aim/shared-kit/testing/render';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function setup(gateway = fakeGateway(), errorMs = 7000) {
  const notify = fakeNotices();
  const { user } = render(<PaymentMethodsPage gateway={gateway} notify={notify} errorMs={errorMs} />, { route: '/' });
  return { gateway, notify, user };
}

const visa = card();
const mastercard = card({ id: 'pm_2', brand: 'mastercard', last4: '4444', default: false });

describe('the Payment Methods page', () => {
  it("shows 'No payment methods yet' for a user without cards", async () => {
    setup();
    expect((await screen.findByTestId('payment-methods-empty')).textContent).toContain('No payment methods yet');
  });

  it("says 'Failed to load payment methods' when the list cannot be read", async () => {
    const { notify } = setup(fakeGateway({ paymentMethods: vi.fn().mockRejectedValue(new Error('down')) }));
    expect(await screen.findByTestId('payment-methods-load-error')).toBeTruthy();
    expect(notify.error).toHaveBeenCalledWith('Failed to load payment methods');
  });

  it('sets another card as default and deletes one', async () => {
    const gateway = fakeGateway({
      paymentMethods: vi.fn(async () => [visa, mastercard]),
      makeDefaultPaymentMethod: vi.fn(async () => [
        { ...visa, default: false },
        { ...mastercard, default: true },
      ]),
      removePaymentMethod: vi.fn(async () => [{ ...mastercard, default: true }]),
    });
    const { user } = setup(gateway);
    await user.click(await screen.findByRole('button', { name: 'Set Mastercard ending 4444 as default' }));
    expect(gateway.makeDefaultPaymentMethod).toHaveBeenCalledWith('pm_2');
    await waitFor(() => expect(screen.getAllByTestId('payment-method').find((el) => el.dataset.default === 'true')?.dataset.last4).toBe('4444'));
    await user.click(screen.getByRole('button', { name: 'Delete Visa ending 4242' }));
    await waitFor(() => expect(screen.getAllByTestId('payment-method')).toHaveLength(1));
  });

  it('gives every card Set default and Delete, with Set default disabled on the default card (spec §2)', async () => {
    const amex = card({ id: 'pm_3', brand: 'amex', last4: '0005', default: false });
    setup(fakeGateway({ paymentMethods: vi.fn(async () => [visa, mastercard, amex]) }));
    await screen.findAllByTestId('payment-method');
    for (const el of screen.getAllByTestId('payment-method')) {
      const buttons = within(el).getAllByRole('button');
      expect(buttons.map((b) => b.textContent)).toEqual(['Set default', 'Delete']);
      const [setDefault, remove] = buttons as HTMLButtonElement[];
      expect(setDefault!.disabled).toBe(el.dataset.default === 'true');
      expect(remove!.disabled).toBe(false);
    }
    expect((screen.getByRole('button', { name: 'Set Visa ending 4242 as default' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Set Amex ending 0005 as default' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('says so and offers a retry when the billing config cannot be read, and Add New waits for it', async () => {
    const config = vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(sandboxConfig);
    const { user } = setup(fakeGateway({ config }));
    const error = await screen.findByTestId('payment-methods-config-error');
    expect((screen.getByRole('button', { name: 'Add New' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect((screen.getByRole('button', { name: 'Add New' }) as HTMLButtonElement).disabled).toBe(false));
    expect(screen.queryByTestId('payment-methods-config-error')).toBeNull();
  });

  it("shows the server's message, or the default text, for 7 seconds", async () => {
    const removePaymentMethod = vi
      .fn()
      .mockRejectedValueOnce(apiError('This is the only card for your subscription or auto top-up. Add another card before removing it.'))
      .mockRejectedValueOnce(new Error('network'));
    const { user } = setup(fakeGateway({ paymentMethods: vi.fn(async () => [visa]), removePaymentMethod }), 300);
    await user.click(await screen.findByRole('button', { name: 'Delete Visa ending 4242' }));
    expect((await screen.findByTestId('payment-methods-error')).textContent).toBe(
      'This is the only card for your subscription or auto top-up. Add another card before removing it.',
    );
    await waitFor(() => expect(screen.queryByTestId('payment-methods-error')).toBeNull(), { timeout: 2000 });
    await user.click(screen.getByRole('button', { name: 'Delete Visa ending 4242' }));
    expect((await screen.findByTestId('payment-methods-error')).textContent).toBe('An unexpected error occured, please refresh and try again.');
  });

  it('adds a card through a setup intent and saves it', async () => {
    const paymentMethods = vi.fn().mockResolvedValueOnce([]).mockResolvedValue([visa]);
    const gateway = fakeGateway({
      paymentMethods,
      sandboxConfirm: vi.fn(async () => confirmed('succeeded', { object: 'setup_intent', id: 'seti_sbx_1', payment_method: 'pm_new' })),
    });
    const { user } = setup(gateway);
    await screen.findByTestId('payment-methods-empty');
    await user.click(screen.getByRole('button', { name: 'Add New' }));
    const dialog = await screen.findByTestId('checkout-dialog');
    await user.type(within(dialog).getByLabelText('Card number'), '4242424242424242');
    await user.type(within(dialog).getByLabelText('Expiry'), '1230');
    await user.type(within(dialog).getByLabelText('CVC'), '123');
    await user.click(within(dialog).getByRole('button', { name: 'Save card' }));
    await waitFor(() => expect(gateway.addPaymentMethod).toHaveBeenCalledWith('seti_sbx_1', 'pm_new'));
    expect(await screen.findByTestId('checkout-done')).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId('payment-method')).toHaveLength(1));
  });

  it.each([
    [
      'the setup is declined',
      {
        sandboxConfirm: vi.fn(async () =>
          confirmed('requires_payment_method', { object: 'setup_intent', error: { code: 'card_declined', message: 'Your card was declined.' } }),
        ),
      },
      'Setup failed: Your card was declined.',
      undefined,
    ],
    [
      'the card cannot be saved',
      { addPaymentMethod: vi.fn().mockRejectedValue(apiError('Setup intent not found', 404)) },
      'Failed to save payment method',
      'Setup intent not found',
    ],
  ])('tells the user when %s', async (_case, over, title, description) => {
    const { notify, user } = setup(fakeGateway(over));
    await screen.findByTestId('payment-methods-empty');
    await user.click(screen.getByRole('button', { name: 'Add New' }));
    const dialog = await screen.findByTestId('checkout-dialog');
    await user.type(within(dialog).getByLabelText('Card number'), '4000000000000002');
    await user.type(within(dialog).getByLabelText('Expiry'), '1230');
    await user.type(within(dialog).getByLabelText('CVC'), '123');
    await act(() => user.click(within(dialog).getByRole('button', { name: 'Save card' })));
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith(title, ...(description ? [description] : [])));
  });
});
