import { useState, type FormEvent } from 'react';
import { Alert, Button, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import type { Stripe } from '@stripe/stripe-js';
import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
import { useQuery } from '@aim/shared-kit/query';
import { useTheme } from '@aim/shared-kit/theme';
import type { Intent } from '../../gateway/billing-gateway.ts';
import type { PaymentOutcome } from './payment-form.tsx';
import { loadStripeOnce, STRIPE_LOAD_FAILED } from './stripe-loader.ts';

type Props = {
  publishableKey: string;
  intent: Intent;
  submitLabel: string;
  onSucceeded: (outcome: PaymentOutcome) => void;
  onFailed?: (reason: string) => void;
};

type LoadState = { status: 'loading' } | { status: 'ready'; stripe: Stripe } | { status: 'failed' };

/**
 * Stripe's Payment Element for the provider 'stripe'. <Elements> never reports a rejected
 * Stripe promise, so Stripe.js is loaded here first and a failure shows a message and Retry;
 * the Stripe object of <Elements> cannot change after mount, so a retry remounts it.
 */
export default function StripePaymentForm({ publishableKey, intent, submitLabel, onSucceeded, onFailed }: Props) {
  const [attempt, setAttempt] = useState(0);
  const { resolved } = useTheme();
  const load = useQuery({ queryKey: ['stripe-js', publishableKey], queryFn: () => loadStripeOnce(publishableKey), staleTime: Number.POSITIVE_INFINITY });
  const state: LoadState = load.isFetching
    ? { status: 'loading' }
    : load.data
      ? { status: 'ready', stripe: load.data }
      : load.isError
        ? { status: 'failed' }
        : { status: 'loading' };
  const retry = () => {
    setAttempt((n) => n + 1);
    void load.refetch();
  };

  if (state.status === 'loading') {
    return (
      <Stack gap="3" data-testid="stripe-loading" aria-busy="true">
        <Skeleton h="10" />
        <Skeleton h="10" />
        <Text textStyle="sm" color="fg.muted">
          Loading the payment form...
        </Text>
      </Stack>
    );
  }
  if (state.status === 'failed') {
    return (
      <Alert.Root status="error" data-testid="stripe-load-failed">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>{STRIPE_LOAD_FAILED}</Alert.Title>
          <Alert.Description>Check your connection or content blocker, then try again.</Alert.Description>
        </Alert.Content>
        <Button size="sm" variant="outline" alignSelf="center" onClick={retry}>
          Retry
        </Button>
      </Alert.Root>
    );
  }
  return (
    <Elements
      key={attempt}
      stripe={state.stripe}
      options={{ clientSecret: intent.clientSecret, appearance: { theme: resolved === 'dark' ? 'night' : 'stripe' } }}
    >
      <StripeFields intent={intent} submitLabel={submitLabel} onSucceeded={onSucceeded} onFailed={onFailed} />
    </Elements>
  );
}

function StripeFields({ intent, submitLabel, onSucceeded, onFailed }: Omit<Props, 'publishableKey'>) {
  const stripe = useStripe();
  const elements = useElements();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!stripe || !elements || busy) return;
    setBusy(true);
    setFailure(null);
    // Cards settle in place (3-D Secure in Stripe's modal); only redirect-based methods leave.
    const confirmParams = { return_url: `${window.location.origin}/payment-success` };
    const result =
      intent.kind === 'payment'
        ? await stripe.confirmPayment({ elements, redirect: 'if_required', confirmParams })
        : await stripe.confirmSetup({ elements, redirect: 'if_required', confirmParams });
    setBusy(false);
    if (result.error) {
      const reason = result.error.message ?? 'The payment could not be completed.';
      setFailure(reason);
      onFailed?.(reason);
      return;
    }
    const confirmed = 'paymentIntent' in result && result.paymentIntent ? result.paymentIntent : 'setupIntent' in result ? result.setupIntent : undefined;
    if (!confirmed) return;
    const method = confirmed.payment_method;
    onSucceeded({ intentId: confirmed.id, paymentMethodId: typeof method === 'string' ? method : (method?.id ?? null) });
  }

  return (
    <form onSubmit={submit} data-testid="stripe-payment-form">
      <Stack gap="4">
        <PaymentElement />
        {failure && (
          <Alert.Root status="error" data-testid="payment-error">
            <Alert.Indicator />
            <Alert.Title>{failure}</Alert.Title>
          </Alert.Root>
        )}
        <Button type="submit" colorPalette="brand" loading={busy} disabled={!stripe || !elements}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
