import { Navigate, Link as RouterLink, useSearchParams } from '@aim/shared-kit/router';
import { Button, Card, Center, HStack, Text } from '@aim/shared-kit/ui';
import { paymentReturn } from './payment-return.ts';

const PAYMENT_METHODS = '/dashboard/billing/payment-methods';

/**
 * Spec §2 /payment-success: where Stripe returns after a card setup (or payment) that needed a
 * redirect. It says what the return parameters report; with none it has nothing true to say
 * and sends the user to Payment Methods.
 */
export function PaymentSuccessPage() {
  const [params] = useSearchParams();
  const result = paymentReturn(params);
  if (!result) return <Navigate to={PAYMENT_METHODS} replace />;
  return (
    <Center minH="100dvh" p="6" data-testid="screen-payment-success">
      <Card.Root maxW="md" w="full" variant="outline">
        <Card.Header>
          <Card.Title as="h1" data-testid="payment-success-title" color={result.tone === 'error' ? 'fg.error' : undefined}>
            {result.title}
          </Card.Title>
        </Card.Header>
        <Card.Body>
          <Text color="fg.muted">{result.text}</Text>
        </Card.Body>
        <Card.Footer>
          <HStack gap="2" wrap="wrap">
            <Button asChild colorPalette="brand">
              <RouterLink to={PAYMENT_METHODS}>Payment Methods</RouterLink>
            </Button>
            <Button asChild variant="outline">
              <RouterLink to="/dashboard/billing/subscription">Subscription</RouterLink>
            </Button>
          </HStack>
        </Card.Footer>
      </Card.Root>
    </Center>
  );
}
