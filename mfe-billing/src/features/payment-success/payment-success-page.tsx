import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { Button, Card, Center, HStack, Text } from '@chakra-ui/react';

/**
 * Spec §2 /payment-success: where Stripe returns after a card setup (or payment) that needed a
 * redirect. Stripe appends redirect_status and the intent; the server records the outcome from
 * the provider's event, so this page only tells the user and leads back.
 */
export function PaymentSuccessPage() {
  const [params] = useSearchParams();
  const failed = params.get('redirect_status') === 'failed';
  const isPayment = params.has('payment_intent');
  const title = failed ? 'Setup failed' : isPayment ? 'Payment successful' : 'Card saved';
  const text = failed
    ? 'Your card could not be confirmed. Please try again or use another card.'
    : isPayment
      ? 'Thank you. Your plan and credits update in a moment.'
      : 'Your card was added to your payment methods.';
  return (
    <Center minH="100dvh" p="6" data-testid="screen-payment-success">
      <Card.Root maxW="md" w="full" variant="outline">
        <Card.Header>
          <Card.Title as="h1" data-testid="payment-success-title">
            {title}
          </Card.Title>
        </Card.Header>
        <Card.Body>
          <Text color="fg.muted">{text}</Text>
        </Card.Body>
        <Card.Footer>
          <HStack gap="2" wrap="wrap">
            <Button asChild colorPalette="brand">
              <RouterLink to="/dashboard/billing/payment-methods">Payment Methods</RouterLink>
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
