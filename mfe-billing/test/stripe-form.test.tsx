// @vitest-environment jsdom
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Stripe } from '@stripe/stripe-js';

const loadStripe = vi.fn();
vi.mock('@stripe/stripe-js/pure', () => ({ loadStripe }));

const { loadStripeOnce, STRIPE_LOAD_FAILED } = await import('../src/features/checkout/stripe-loader.ts');
const { default: StripePaymentForm } = await import('../src/features/checkout/stripe-payment-form.tsx');
const { PaymentForm } = await import('../src/features/checkout/payment-form.tsx');
const { render } = await import('@aim/shared-kit/testing/render');
const { fakeGateway, sandboxConfig } = await import('./support/fake-gateway.ts');

// A function returned from beforeEach is a teardown: the braces keep the mock from being one.
beforeEach(() => {
  loadStripe.mockReset();
});
afterEach(cleanup);

const intent = { kind: 'payment' as const, clientSecret: 'pi_1_secret_x' };

describe('loading Stripe.js', () => {
  it('asks again after a failure instead of keeping it', async () => {
    const stripe = {} as Stripe;
    loadStripe.mockRejectedValueOnce(new Error('Failed to load Stripe.js')).mockResolvedValueOnce(stripe);
    await expect(loadStripeOnce('pk_test_a')).rejects.toThrow('Failed to load Stripe.js');
    await expect(loadStripeOnce('pk_test_a')).resolves.toBe(stripe);
    await expect(loadStripeOnce('pk_test_a')).resolves.toBe(stripe);
    expect(loadStripe).toHaveBeenCalledTimes(2);
  });

  it('gives up on a script that never loads', async () => {
    loadStripe.mockReturnValueOnce(new Promise(() => undefined));
    await expect(loadStripeOnce('pk_test_slow', loadStripe, 20)).rejects.toThrow('did not load');
  });
});

describe('the Stripe payment form', () => {
  it('shows a message and Retry when Stripe.js cannot load, and Retry asks again', async () => {
    loadStripe.mockRejectedValue(new Error('Failed to load Stripe.js'));
    const { user } = render(<StripePaymentForm publishableKey="pk_test_b" intent={intent} submitLabel="Pay" onSucceeded={vi.fn()} />, { route: '/' });
    expect((await screen.findByTestId('stripe-load-failed')).textContent).toContain(STRIPE_LOAD_FAILED);
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(loadStripe).toHaveBeenCalledTimes(2));
    expect(await screen.findByTestId('stripe-load-failed')).toBeTruthy();
  });

  it('never loads Stripe.js for the sandbox provider', () => {
    render(<PaymentForm gateway={fakeGateway()} config={sandboxConfig} intent={intent} submitLabel="Pay" onSucceeded={vi.fn()} />, { route: '/' });
    expect(screen.getByTestId('sandbox-card-form')).toBeTruthy();
    expect(loadStripe).not.toHaveBeenCalled();
  });
});
