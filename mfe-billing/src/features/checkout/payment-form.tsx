import { lazy, Suspense } from 'react';
import { Alert, Skeleton } from '@aim/shared-kit/ui';
import type { BillingConfig, BillingGateway, Intent } from '../../gateway/billing-gateway.ts';
import { SandboxCardForm } from './sandbox-card-form.tsx';

// Its own chunk: the sandbox never even downloads the Stripe code.
const StripePaymentForm = lazy(() => import('./stripe-payment-form.tsx'));

/** A confirmed payment or card setup, as the form reports it (credits follow from the server). */
export type PaymentOutcome = { intentId: string; paymentMethodId: string | null };

export type PaymentFormProps = {
  gateway: BillingGateway;
  config: BillingConfig;
  intent: Intent;
  submitLabel: string;
  onSucceeded: (outcome: PaymentOutcome) => void;
  onFailed?: (reason: string) => void;
};

/** The provider's payment form: Stripe's Payment Element, or the sandbox card form. */
export function PaymentForm({ gateway, config, intent, submitLabel, onSucceeded, onFailed }: PaymentFormProps) {
  if (config.provider === 'sandbox') {
    return <SandboxCardForm gateway={gateway} intent={intent} submitLabel={submitLabel} onSucceeded={onSucceeded} onFailed={onFailed} />;
  }
  if (!config.publishable_key) {
    return (
      <Alert.Root status="error" data-testid="stripe-not-configured">
        <Alert.Indicator />
        <Alert.Title>Card payments are not configured on this server.</Alert.Title>
      </Alert.Root>
    );
  }
  return (
    <Suspense fallback={<Skeleton h="24" />}>
      <StripePaymentForm publishableKey={config.publishable_key} intent={intent} submitLabel={submitLabel} onSucceeded={onSucceeded} onFailed={onFailed} />
    </Suspense>
  );
}
