// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { render } from '@aim/shared-kit/testing/render';
import { paymentReturn } from '../src/features/payment-success/payment-return.ts';
import { PaymentSuccessPage } from '../src/features/payment-success/payment-success-page.tsx';

afterEach(cleanup);

function open(search: string) {
  render(
    <Routes>
      <Route path="/payment-success" element={<PaymentSuccessPage />} />
      <Route path="/dashboard/billing/payment-methods" element={<p data-testid="payment-methods">Payment Methods</p>} />
    </Routes>,
    { route: `/payment-success${search}` },
  );
}

describe('/payment-success', () => {
  it.each([
    ['?setup_intent=seti_1&setup_intent_client_secret=s&redirect_status=succeeded', 'Card saved'],
    ['?setup_intent=seti_1&redirect_status=processing', 'Card being confirmed'],
    ['?setup_intent=seti_1&redirect_status=failed', 'Setup failed'],
    ['?payment_intent=pi_1&payment_intent_client_secret=s&redirect_status=succeeded', 'Payment successful'],
    ['?payment_intent=pi_1&redirect_status=processing', 'Payment processing'],
    ['?payment_intent=pi_1&redirect_status=failed', 'Payment failed'],
  ])('says what %s reports: %s', (search, title) => {
    open(search);
    expect(screen.getByTestId('payment-success-title').textContent).toBe(title);
  });

  it.each(['', '?foo=bar', '?redirect_status=succeeded', '?setup_intent=seti_1', '?payment_intent=pi_1&redirect_status=nonsense'])(
    'claims nothing without a result to show (%s) and sends the user to Payment Methods',
    (search) => {
      open(search);
      expect(screen.queryByTestId('payment-success-title')).toBeNull();
      expect(screen.getByTestId('payment-methods')).toBeTruthy();
      expect(paymentReturn(new URLSearchParams(search))).toBeNull();
    },
  );
});
