import { useState, type FormEvent } from 'react';
import { Alert, Badge, Box, Button, Field, HStack, Input, List, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { serverMessage, type BillingGateway, type Intent, type SandboxConfirmResult } from '../../gateway/billing-gateway.ts';
import { TEXTS } from '../../notices.ts';
import { formatCardNumber, formatExpiry, readCard, SANDBOX_HINTS, type CardErrors, type CardFields } from './card-rules.ts';
import type { PaymentOutcome } from './payment-form.tsx';

type Props = {
  gateway: BillingGateway;
  intent: Intent;
  submitLabel: string;
  onSucceeded: (outcome: PaymentOutcome) => void;
  onFailed?: (reason: string) => void;
};

const EMPTY: CardFields = { number: '', expiry: '', cvc: '', name: '' };
const INCOMPLETE = 'The payment could not be completed. Try another card.';

/**
 * The payment form of the sandbox provider: Stripe's test cards, confirmed against the API's
 * /billing/sandbox/confirm, including the 3-D Secure step. Nothing leaves loopback and no money
 * moves; the card number and CVC are sent once and never kept.
 */
export function SandboxCardForm({ gateway, intent, submitLabel, onSucceeded, onFailed }: Props) {
  const [fields, setFields] = useState<CardFields>(EMPTY);
  const [errors, setErrors] = useState<CardErrors>({});
  const [phase, setPhase] = useState<'form' | 'confirming' | '3ds' | 'authenticating'>('form');
  const [failure, setFailure] = useState<string | null>(null);

  const set = (key: keyof CardFields, value: string) => {
    setFields((f) => ({ ...f, [key]: value }));
    if (key !== 'name') setErrors((e) => ({ ...e, [key]: undefined }));
  };

  function fail(reason: string) {
    setFailure(reason);
    setPhase('form');
    onFailed?.(reason);
  }

  function settle(result: SandboxConfirmResult) {
    if (result.status === 'succeeded' || result.status === 'processing') {
      onSucceeded({ intentId: result.id, paymentMethodId: result.payment_method });
    } else if (result.status === 'requires_action') {
      setPhase('3ds');
    } else {
      fail(result.error?.message ?? INCOMPLETE);
    }
  }

  async function confirm(phaseWhile: 'confirming' | 'authenticating', input: Parameters<BillingGateway['sandboxConfirm']>[0]) {
    setPhase(phaseWhile);
    setFailure(null);
    try {
      settle(await gateway.sandboxConfirm(input));
    } catch (err) {
      fail(serverMessage(err) ?? TEXTS.unexpected);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (phase !== 'form') return;
    const read = readCard(fields);
    if (!read.ok) {
      setErrors(read.errors);
      return;
    }
    void confirm('confirming', { clientSecret: intent.clientSecret, card: read.card });
  }

  const busy = phase === 'confirming' || phase === 'authenticating';

  return (
    <Stack gap="4" data-testid="sandbox-card-form">
      <HStack gap="2" justify="space-between" wrap="wrap">
        <Badge colorPalette="orange" variant="solid" size="md" data-testid="sandbox-badge">
          SANDBOX
        </Badge>
        <Text textStyle="xs" color="fg.muted">
          Test mode: no real charges
        </Text>
      </HStack>

      {phase === '3ds' || phase === 'authenticating' ? (
        <Box borderWidth="1px" rounded="l2" p="4" bg="bg.subtle" role="group" aria-labelledby="sandbox-3ds-title" data-testid="sandbox-3ds">
          <Stack gap="3">
            <Text id="sandbox-3ds-title" fontWeight="semibold">
              3-D Secure authentication
            </Text>
            <Text textStyle="sm" color="fg.muted">
              Your card issuer asks you to confirm this {intent.kind === 'setup' ? 'card' : 'payment'}. In the sandbox you decide the answer.
            </Text>
            <HStack gap="2" wrap="wrap">
              <Button
                colorPalette="brand"
                loading={phase === 'authenticating'}
                onClick={() => void confirm('authenticating', { clientSecret: intent.clientSecret, threeDSecure: 'approve' })}
              >
                Complete authentication
              </Button>
              <Button
                variant="outline"
                disabled={phase === 'authenticating'}
                onClick={() => void confirm('authenticating', { clientSecret: intent.clientSecret, threeDSecure: 'fail' })}
              >
                Fail authentication
              </Button>
            </HStack>
          </Stack>
        </Box>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="3">
            <Field.Root invalid={!!errors.number}>
              <Field.Label>Card number</Field.Label>
              <Input
                value={fields.number}
                onChange={(e) => set('number', formatCardNumber(e.currentTarget.value))}
                inputMode="numeric"
                autoComplete="cc-number"
                placeholder="4242 4242 4242 4242"
                disabled={busy}
                autoFocus
              />
              <Field.ErrorText>{errors.number}</Field.ErrorText>
            </Field.Root>
            <SimpleGrid columns={2} gap="3">
              <Field.Root invalid={!!errors.expiry}>
                <Field.Label>Expiry</Field.Label>
                <Input
                  value={fields.expiry}
                  onChange={(e) => set('expiry', formatExpiry(e.currentTarget.value))}
                  inputMode="numeric"
                  autoComplete="cc-exp"
                  placeholder="MM / YY"
                  disabled={busy}
                />
                <Field.ErrorText>{errors.expiry}</Field.ErrorText>
              </Field.Root>
              <Field.Root invalid={!!errors.cvc}>
                <Field.Label>CVC</Field.Label>
                <Input
                  value={fields.cvc}
                  onChange={(e) => set('cvc', e.currentTarget.value.replace(/\D+/g, '').slice(0, 4))}
                  inputMode="numeric"
                  autoComplete="cc-csc"
                  placeholder="123"
                  disabled={busy}
                />
                <Field.ErrorText>{errors.cvc}</Field.ErrorText>
              </Field.Root>
            </SimpleGrid>
            <Field.Root>
              <Field.Label>Name on card (optional)</Field.Label>
              <Input value={fields.name} onChange={(e) => set('name', e.currentTarget.value)} autoComplete="cc-name" disabled={busy} />
            </Field.Root>
            <Button type="submit" colorPalette="brand" loading={busy} loadingText="Confirming...">
              {submitLabel}
            </Button>
          </Stack>
        </form>
      )}

      {failure && (
        <Alert.Root status="error" data-testid="payment-error">
          <Alert.Indicator />
          <Alert.Title>{failure}</Alert.Title>
        </Alert.Root>
      )}

      <Box borderWidth="1px" borderStyle="dashed" rounded="l2" p="3" data-testid="sandbox-hints">
        <Text textStyle="xs" fontWeight="semibold" mb="1">
          Test cards (any future expiry, any CVC)
        </Text>
        <List.Root gap="1" textStyle="xs" color="fg.muted" variant="plain">
          {SANDBOX_HINTS.map((hint) => (
            <List.Item key={hint.number} display="flex" gap="2" alignItems="baseline">
              <Button
                variant="plain"
                size="xs"
                h="auto"
                p="0"
                fontFamily="mono"
                color="fg"
                textDecoration="underline dotted"
                disabled={phase !== 'form'}
                aria-label={`Use test card ${hint.number}`}
                onClick={() => set('number', hint.number)}
              >
                {hint.number}
              </Button>{' '}
              <span>{hint.outcome}</span>
            </List.Item>
          ))}
        </List.Root>
      </Box>
    </Stack>
  );
}
