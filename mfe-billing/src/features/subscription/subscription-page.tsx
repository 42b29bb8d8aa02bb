import { useState } from 'react';
import { Alert, Badge, Button, Card, DataList, Dialog, Heading, HStack, Portal, SimpleGrid, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { planLabel } from '@aim/shared-kit/domain';
import { formatCredits } from '@aim/shared-kit/format';
import { refreshUserRow } from '@aim/shared-kit/session';
import type { BillingAccount } from '../../gateway/account.ts';
import type { BillingConfig, BillingGateway, CatalogPlan, Intent } from '../../gateway/billing-gateway.ts';
import { useActionKey } from '../../gateway/action-key.ts';
import { useBillingConfig } from '../../gateway/billing-queries.ts';
import { TEXTS, type Notices } from '../../notices.ts';
import type { ActivityGateway } from '../activity/activity-gateway.ts';
import { CreditActivity } from '../activity/credit-activity.tsx';
import { CatalogUnavailable } from '../catalog/catalog-unavailable.tsx';
import { CheckoutDialog, startCheckout } from '../checkout/checkout-panel.tsx';
import { TopUpDialogView } from '../top-up/top-up-dialog.tsx';
import { PlanCards } from './plan-cards.tsx';
import { cancelButton, formatDate, formatUsd, isTrialEligible } from './plan-rules.ts';

export type SubscriptionPageProps = {
  gateway: BillingGateway;
  account: BillingAccount | null;
  /** The live user row's load state (shared-kit session). */
  status: 'idle' | 'loading' | 'ready' | 'error';
  notify: Notices;
  /** Usage and credit history (issue 15); left out, the section is not shown. */
  activity?: ActivityGateway;
};

type Trial = BillingConfig['trial'];

type Checkout = { title: string; intent: Intent; summary: string; submitLabel: string; doneText: string };

const TRIAL_KEY = 'trial';

/** Spec §2 Subscription: the account's plan and credits, cancel, Get credits, the plans and the trial. */
export function SubscriptionPage({ gateway, account, status, notify, activity }: SubscriptionPageProps) {
  const config = useBillingConfig(gateway);
  const [starting, setStarting] = useState<string | null>(null);
  const actionKey = useActionKey();
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [topUpOpen, setTopUpOpen] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [cancelling, setCancelling] = useState(false);

  if (!account) {
    return (
      <Page>
        {status === 'error' ? (
          <Alert.Root status="error" data-testid="subscription-error">
            <Alert.Indicator />
            <Alert.Title>Your account could not be loaded. Please refresh the page.</Alert.Title>
          </Alert.Root>
        ) : (
          <Stack gap="4" data-testid="subscription-loading" aria-busy="true">
            <Skeleton h="32" rounded="l3" />
            <PlansSkeleton />
          </Stack>
        )}
      </Page>
    );
  }

  async function begin(key: string, call: (action: { idempotencyKey: string }) => Promise<{ clientSecret: string }>, describe: Omit<Checkout, 'intent'>) {
    if (starting) return;
    setStarting(key);
    const action = actionKey.keyFor(key);
    const started = await startCheckout(() => call(action), notify);
    setStarting(null);
    if (started) actionKey.done();
    if (started) setCheckout({ ...describe, intent: { kind: 'payment', clientSecret: started.clientSecret } });
  }

  function choosePlan(plan: CatalogPlan) {
    const switching = !!account?.next_billing_date && account.plan !== 'zero';
    void begin(plan.id, (action) => gateway.subscribe(plan.id, action), {
      title: `${switching ? 'Switch to' : 'Subscribe to'} ${plan.label}`,
      summary: `${plan.label} plan: ${formatUsd(plan.amount)} / month, ${formatCredits(plan.credits)} credits every month`,
      submitLabel: `Pay ${formatUsd(plan.amount)}`,
      doneText: `You are subscribed to ${plan.label}. Its ${formatCredits(plan.credits)} credits are added to your balance.`,
    });
  }

  function startTrial(trial: Trial) {
    void begin(TRIAL_KEY, (action) => gateway.trial(action), {
      title: 'Start your trial',
      summary: `${trial.days}-day trial: ${formatUsd(trial.amount)} for ${formatCredits(trial.credits)} credits`,
      submitLabel: `Pay ${formatUsd(trial.amount)}`,
      doneText: 'Your trial has started. Its credits are added to your balance.',
    });
  }

  async function cancel() {
    setCancelling(true);
    try {
      await gateway.cancel();
      setConfirmCancel(false);
      void refreshUserRow().catch(() => undefined);
    } catch {
      setConfirmCancel(false);
      notify.alert(TEXTS.unexpected);
    } finally {
      setCancelling(false);
    }
  }

  const cancelState = cancelButton(account);
  const trial = isTrialEligible(account) ? (config.config?.trial ?? null) : null;

  return (
    <Page>
      <Card.Root variant="outline" data-testid="subscription-summary">
        <Card.Body>
          <Stack gap="5" direction={{ base: 'column', lg: 'row' }} justify="space-between">
            <DataList.Root orientation="vertical" size="md" flexDirection={{ base: 'column', md: 'row' }} gap={{ base: '4', md: '10' }}>
              <DataList.Item>
                <DataList.ItemLabel>Usage credits</DataList.ItemLabel>
                <DataList.ItemValue>
                  <Badge size="lg" colorPalette="brand" variant="subtle" data-testid="usage-credits">
                    {formatCredits(account.credits)}
                  </Badge>
                </DataList.ItemValue>
              </DataList.Item>
              <DataList.Item>
                <DataList.ItemLabel>Plan</DataList.ItemLabel>
                <DataList.ItemValue fontWeight="semibold" data-testid="current-plan">
                  {planLabel(account.plan)}
                </DataList.ItemValue>
              </DataList.Item>
              <DataList.Item>
                <DataList.ItemLabel>Next billing date</DataList.ItemLabel>
                <DataList.ItemValue data-testid="next-billing-date">{formatDate(account.next_billing_date)}</DataList.ItemValue>
              </DataList.Item>
              <DataList.Item>
                <DataList.ItemLabel>Email</DataList.ItemLabel>
                <DataList.ItemValue data-testid="account-email">{account.email}</DataList.ItemValue>
              </DataList.Item>
            </DataList.Root>
            <HStack gap="2" alignSelf={{ base: 'flex-start', lg: 'center' }}>
              <Button
                variant="outline"
                colorPalette="red"
                disabled={cancelState.disabled}
                onClick={() => setConfirmCancel(true)}
                data-testid="cancel-subscription"
              >
                {cancelState.label}
              </Button>
              <Button colorPalette="brand" onClick={() => setTopUpOpen(true)}>
                Get credits
              </Button>
            </HStack>
          </Stack>
        </Card.Body>
      </Card.Root>

      {trial && (
        <Card.Root variant="subtle" data-testid="trial-offer">
          <Card.Body>
            <Stack direction={{ base: 'column', md: 'row' }} gap="4" justify="space-between" align={{ md: 'center' }}>
              <Stack gap="1">
                <Text fontWeight="semibold">Try it for {trial.days} days</Text>
                <Text textStyle="sm" color="fg.muted">
                  {formatUsd(trial.amount)} once, with {formatCredits(trial.credits)} credits to try every tool. Offered once, before your first plan.
                </Text>
              </Stack>
              <Button
                colorPalette="brand"
                variant="outline"
                loading={starting === TRIAL_KEY}
                disabled={!!starting && starting !== TRIAL_KEY}
                onClick={() => startTrial(trial)}
              >
                Start {trial.days}-day trial
              </Button>
            </Stack>
          </Card.Body>
        </Card.Root>
      )}

      <Stack gap="3">
        <HStack justify="space-between" wrap="wrap" gap="2">
          <Heading as="h2" size="lg">
            Plans
          </Heading>
          <Text textStyle="sm" color="fg.muted" data-testid="subscription-note">
            {TEXTS.needsSubscription}
          </Text>
        </HStack>
        {config.status === 'ready' ? (
          <PlanCards account={account} plans={config.config.plans} starting={starting === TRIAL_KEY ? null : starting} onChoose={choosePlan} />
        ) : config.status === 'error' ? (
          <CatalogUnavailable title="The plans and prices could not be loaded." onRetry={config.retry} testId="plans-error" />
        ) : (
          <PlansSkeleton testId="plans-loading" />
        )}
      </Stack>

      {activity && <CreditActivity gateway={activity} />}

      {checkout && config.config && (
        <CheckoutDialog
          open
          title={checkout.title}
          onClose={() => setCheckout(null)}
          onDone={() => setCheckout(null)}
          gateway={gateway}
          config={config.config}
          intent={checkout.intent}
          summary={<Text>{checkout.summary}</Text>}
          submitLabel={checkout.submitLabel}
          doneText={checkout.doneText}
        />
      )}
      <TopUpDialogView open={topUpOpen} onOpenChange={setTopUpOpen} gateway={gateway} account={account} notify={notify} />
      <Dialog.Root role="alertdialog" open={confirmCancel} onOpenChange={(e) => setConfirmCancel(e.open)} placement="center">
        <Portal>
          <Dialog.Backdrop />
          <Dialog.Positioner>
            <Dialog.Content data-testid="cancel-dialog">
              <Dialog.Header>
                <Dialog.Title>Cancel your subscription?</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body>
                <Text>Your plan stays active until {formatDate(account.next_billing_date)} and does not renew after that.</Text>
              </Dialog.Body>
              <Dialog.Footer>
                <Button variant="outline" onClick={() => setConfirmCancel(false)} disabled={cancelling}>
                  Keep my plan
                </Button>
                <Button colorPalette="red" loading={cancelling} onClick={() => void cancel()}>
                  Cancel subscription
                </Button>
              </Dialog.Footer>
            </Dialog.Content>
          </Dialog.Positioner>
        </Portal>
      </Dialog.Root>
    </Page>
  );
}

/** The four plan cards while the catalog loads. */
function PlansSkeleton({ testId }: { testId?: string }) {
  return (
    <SimpleGrid columns={{ base: 1, md: 2, xl: 4 }} gap="4" data-testid={testId} aria-busy={testId ? 'true' : undefined}>
      {[0, 1, 2, 3].map((i) => (
        <Skeleton key={i} h="64" rounded="l3" />
      ))}
    </SimpleGrid>
  );
}

function Page({ children }: { children: React.ReactNode }) {
  return (
    <Stack gap="6" w="full" maxW="7xl" data-testid="screen-subscription">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Subscription
        </Heading>
        <Text color="fg.muted">Your plan, your credits and what each plan includes.</Text>
      </Stack>
      {children}
    </Stack>
  );
}
