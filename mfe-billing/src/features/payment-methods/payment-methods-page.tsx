import { useCallback, useEffect, useRef, useState } from 'react';
import { Alert, Badge, Button, Card, EmptyState, Heading, HStack, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { serverMessage, type BillingGateway, type PaymentMethod } from '../../gateway/billing-gateway.ts';
import { useQuery, useQueryClient } from '@aim/shared-kit/query';
import { billingKeys, useBillingConfig } from '../../gateway/billing-queries.ts';
import { CARD_ERROR_MS, TEXTS, type Notices } from '../../notices.ts';
import { CatalogUnavailable } from '../catalog/catalog-unavailable.tsx';
import { CheckoutDialog, startCheckout } from '../checkout/checkout-panel.tsx';

type Adding = { clientSecret: string; setupIntentId: string };

export type PaymentMethodsPageProps = { gateway: BillingGateway; notify: Notices; errorMs?: number };

const brandName = (brand: string) => (brand ? brand[0]!.toUpperCase() + brand.slice(1) : 'Card');
const pad2 = (n: number) => String(n).padStart(2, '0');

/** Spec §2 Payment Methods: the saved cards with Refresh and Add New; every card has Set default (disabled on the default one) and Delete. */
export function PaymentMethodsPage({ gateway, notify, errorMs = CARD_ERROR_MS }: PaymentMethodsPageProps) {
  const config = useBillingConfig(gateway);
  const client = useQueryClient();
  const query = useQuery({
    queryKey: billingKeys.cards,
    queryFn: async () => {
      try {
        return await gateway.paymentMethods();
      } catch (err) {
        notify.error(TEXTS.failedToLoadPaymentMethods);
        throw err;
      }
    },
    enabled: gateway.ready,
  });
  const cards = query.data ?? [];
  const status = query.isFetching || (!query.data && !query.isError) ? 'loading' : query.isError ? 'error' : 'ready';
  const load = () => query.refetch();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState<Adding | null>(null);
  const errorTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const showError = useCallback(
    (err: unknown) => {
      clearTimeout(errorTimer.current);
      setError(serverMessage(err) ?? TEXTS.unexpected);
      errorTimer.current = setTimeout(() => setError(null), errorMs);
    },
    [errorMs],
  );
  useEffect(() => () => clearTimeout(errorTimer.current), []);

  async function change(key: string, call: () => Promise<PaymentMethod[]>) {
    setBusy(key);
    try {
      client.setQueryData(billingKeys.cards, await call());
    } catch (err) {
      showError(err);
    } finally {
      setBusy(null);
    }
  }

  async function addNew() {
    setBusy('add');
    const started = await startCheckout(() => gateway.createSetupIntent(), notify);
    setBusy(null);
    if (started) setAdding(started);
  }

  async function saveCard(setupIntentId: string, paymentMethodId: string | null) {
    try {
      if (!paymentMethodId) throw new Error('the setup confirmed no card');
      await gateway.addPaymentMethod(setupIntentId, paymentMethodId);
    } catch (err) {
      notify.error(TEXTS.failedToSavePaymentMethod, serverMessage(err));
      throw err;
    } finally {
      void load();
    }
  }

  const firstLoad = status === 'loading' && cards.length === 0;

  return (
    <Stack gap="6" w="full" data-testid="screen-payment-methods">
      <HStack justify="space-between" align="flex-start" wrap="wrap" gap="3">
        <Stack gap="1">
          <Heading as="h1" size="xl">
            Payment Methods
          </Heading>
          <Text color="fg.muted">The default card pays your plan renewals and auto top-ups.</Text>
        </Stack>
        <HStack gap="2">
          <Button variant="outline" onClick={() => void load()} loading={status === 'loading' && !firstLoad} disabled={!gateway.ready}>
            Refresh
          </Button>
          <Button colorPalette="brand" onClick={() => void addNew()} loading={busy === 'add'} disabled={!gateway.ready || config.status !== 'ready'}>
            Add New
          </Button>
        </HStack>
      </HStack>

      {config.status === 'error' && (
        <CatalogUnavailable title="Cards cannot be added right now." onRetry={config.retry} testId="payment-methods-config-error" />
      )}

      {error && (
        <Alert.Root status="error" data-testid="payment-methods-error">
          <Alert.Indicator />
          <Alert.Title>{error}</Alert.Title>
        </Alert.Root>
      )}

      {firstLoad ? (
        <Stack gap="3" data-testid="payment-methods-loading" aria-busy="true">
          <Skeleton h="20" rounded="l3" />
          <Skeleton h="20" rounded="l3" />
        </Stack>
      ) : status === 'error' && cards.length === 0 ? (
        <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="payment-methods-load-error">
          <EmptyState.Content>
            <EmptyState.Title as="h2">{TEXTS.failedToLoadPaymentMethods}</EmptyState.Title>
            <EmptyState.Description>Press Refresh to try again.</EmptyState.Description>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : cards.length === 0 ? (
        <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="payment-methods-empty">
          <EmptyState.Content>
            <EmptyState.Title as="h2">{TEXTS.noPaymentMethods}</EmptyState.Title>
            <EmptyState.Description>Add a card to pay for plans and top-ups.</EmptyState.Description>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : (
        <Stack
          gap="3"
          as="ul"
          listStyleType="none"
          aria-label="Saved cards"
          display="grid"
          gridTemplateColumns="repeat(auto-fill, minmax(min(100%, 26rem), 1fr))"
        >
          {cards.map((card) => {
            const label = `${brandName(card.brand)} ending ${card.last4}`;
            return (
              <Card.Root as="li" key={card.id} variant="outline" data-testid="payment-method" data-last4={card.last4} data-default={card.default}>
                <Card.Body>
                  <HStack justify="space-between" gap="4" wrap="wrap">
                    <Stack gap="0.5">
                      <HStack gap="2">
                        <Text fontWeight="semibold">
                          {brandName(card.brand)} •••• {card.last4}
                        </Text>
                        {card.default && (
                          <Badge colorPalette="brand" variant="subtle" data-testid="default-badge">
                            Default
                          </Badge>
                        )}
                      </HStack>
                      <Text textStyle="sm" color="fg.muted">
                        Expires {pad2(card.exp_month)}/{card.exp_year}
                        {card.name ? ` · ${card.name}` : ''}
                      </Text>
                    </Stack>
                    <HStack gap="2">
                      <Button
                        size="sm"
                        variant="outline"
                        aria-label={`Set ${label} as default`}
                        loading={busy === `default:${card.id}`}
                        disabled={card.default || busy !== null}
                        onClick={() => void change(`default:${card.id}`, () => gateway.makeDefaultPaymentMethod(card.id))}
                      >
                        Set default
                      </Button>
                      <Button
                        size="sm"
                        variant="outline"
                        colorPalette="red"
                        aria-label={`Delete ${label}`}
                        loading={busy === `delete:${card.id}`}
                        disabled={busy !== null}
                        onClick={() => void change(`delete:${card.id}`, () => gateway.removePaymentMethod(card.id))}
                      >
                        Delete
                      </Button>
                    </HStack>
                  </HStack>
                </Card.Body>
              </Card.Root>
            );
          })}
        </Stack>
      )}

      {adding && config.config && (
        <CheckoutDialog
          open
          title="Add a card"
          onClose={() => setAdding(null)}
          onDone={() => setAdding(null)}
          gateway={gateway}
          config={config.config}
          intent={{ kind: 'setup', clientSecret: adding.clientSecret }}
          summary={<Text color="fg.muted">The card is saved for later payments. Nothing is charged now.</Text>}
          submitLabel="Save card"
          doneText="The card was added to your payment methods."
          onConfirmed={(outcome) => saveCard(adding.setupIntentId, outcome.paymentMethodId)}
          onFailed={(reason) => notify.error(TEXTS.setupFailed(reason))}
        />
      )}
    </Stack>
  );
}
