import { useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink } from '@aim/shared-kit/router';
import {
  Alert,
  Button,
  CloseButton,
  Dialog,
  Field,
  Heading,
  Input,
  InputGroup,
  Link,
  NativeSelect,
  Portal,
  Separator,
  Skeleton,
  Stack,
  Text,
} from '@aim/shared-kit/ui';
import { NO_PLAN } from '@aim/shared-kit/domain';
import { formatCredits } from '@aim/shared-kit/format';
import type { TopUpDialogProps } from '@aim/shared-kit/remote';
import { useUserRow } from '@aim/shared-kit/session';
import type { BillingAccount } from '../../gateway/account.ts';
import { useBillingGateway, type BillingConfig, type BillingGateway, type Intent } from '../../gateway/billing-gateway.ts';
import { useEnsureCustomer } from '../../gateway/ensure-customer.ts';
import { QueryProvider } from '@aim/shared-kit/query';
import { useActionKey } from '../../gateway/action-key.ts';
import { useBillingConfig } from '../../gateway/billing-queries.ts';
import { notices, TEXTS, type Notices } from '../../notices.ts';
import { CatalogUnavailable } from '../catalog/catalog-unavailable.tsx';
import { CheckoutPanel, startCheckout } from '../checkout/checkout-panel.tsx';
import { AutoTopUpSettings } from './auto-top-up-settings.tsx';
import { SpendingControls } from './spending-controls.tsx';
import { amountChoices, cleanAmountInput, creditsForUsd, CUSTOM, resolveTopUp } from './top-up-rules.ts';

export type TopUpDialogViewProps = TopUpDialogProps & { gateway: BillingGateway; account: BillingAccount | null; notify?: Notices };

type Step = { kind: 'choose' } | { kind: 'pay'; intent: Intent; usd: number; credits: number };

/** The purchase dialog: the shell's Buy credits button and the Subscription page's Get credits open it. */
export function TopUpDialog({ open, onOpenChange }: TopUpDialogProps) {
  const gateway = useBillingGateway();
  const { row } = useUserRow();
  useEnsureCustomer(gateway, row, open);
  // the shell renders this expose outside the billing app: it brings the page's QueryClient itself
  return (
    <QueryProvider>
      <TopUpDialogView open={open} onOpenChange={onOpenChange} gateway={gateway} account={row} />
    </QueryProvider>
  );
}

export function TopUpDialogView({ open, onOpenChange, gateway, account, notify = notices }: TopUpDialogViewProps) {
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  useEffect(() => {
    if (!open) setStep({ kind: 'choose' });
  }, [open]);
  const close = () => onOpenChange(false);

  return (
    <Dialog.Root open={open} onOpenChange={(e) => onOpenChange(e.open)} placement="center" scrollBehavior="inside" lazyMount unmountOnExit>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="top-up-dialog">
            <Dialog.Header>
              <Dialog.Title>Buy credits</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body pb="6">
              <DialogBody gateway={gateway} account={account} notify={notify} step={step} setStep={setStep} close={close} />
            </Dialog.Body>
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

type BodyProps = { gateway: BillingGateway; account: BillingAccount | null; notify: Notices; step: Step; setStep: (s: Step) => void; close: () => void };

function DialogBody({ gateway, account, notify, step, setStep, close }: BodyProps) {
  const config = useBillingConfig(gateway);
  if (!account || config.status === 'loading' || !gateway.ready) {
    return (
      <Stack gap="3" data-testid="top-up-loading" aria-busy="true">
        <Skeleton h="10" />
        <Skeleton h="24" />
      </Stack>
    );
  }
  if (config.status === 'error') {
    return <CatalogUnavailable title="Billing is unavailable right now." onRetry={config.retry} testId="top-up-error" />;
  }
  if (step.kind === 'pay') {
    return (
      <CheckoutPanel
        gateway={gateway}
        config={config.config}
        intent={step.intent}
        summary={
          <Text>
            Top-up: <b>${step.usd}</b> for <b>{formatCredits(step.credits)} credits</b>
          </Text>
        }
        submitLabel={`Pay $${step.usd}`}
        doneText={`${formatCredits(step.credits)} credits were added to your balance.`}
        onDone={close}
      />
    );
  }
  return <ChooseStep gateway={gateway} account={account} catalog={config.config} notify={notify} onPay={setStep} close={close} />;
}

type ChooseProps = { gateway: BillingGateway; account: BillingAccount; catalog: BillingConfig; notify: Notices; onPay: (s: Step) => void; close: () => void };

function ChooseStep({ gateway, account, catalog, notify, onPay, close }: ChooseProps) {
  const { topup } = catalog;
  const choices = amountChoices(topup);
  const [choice, setChoice] = useState(choices[0]!.value);
  const [custom, setCustom] = useState('');
  const [showError, setShowError] = useState(false);
  const [starting, setStarting] = useState(false);
  const actionKey = useActionKey();
  const subscribed = !!account.plan && account.plan !== NO_PLAN;
  const amount = resolveTopUp(choice, custom, topup);

  async function buy(event: FormEvent) {
    event.preventDefault();
    if (!amount.ok) {
      setShowError(true);
      return;
    }
    setStarting(true);
    const action = actionKey.keyFor(`topup:${amount.usd}`);
    const started = await startCheckout(() => gateway.topUp(amount.usd, action), notify);
    setStarting(false);
    if (started) actionKey.done();
    if (started) onPay({ kind: 'pay', intent: { kind: 'payment', clientSecret: started.clientSecret }, usd: started.amount, credits: started.credits });
  }

  return (
    <Stack gap="5">
      {!subscribed && (
        <Alert.Root status="info" data-testid="needs-subscription">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>{TEXTS.needsSubscription}</Alert.Title>
            <Alert.Description>
              <Link asChild variant="underline" onClick={close}>
                <RouterLink to="/dashboard/billing/subscription">See the plans</RouterLink>
              </Link>
            </Alert.Description>
          </Alert.Content>
        </Alert.Root>
      )}
      <form onSubmit={buy} noValidate>
        <Stack gap="3">
          <Field.Root>
            <Field.Label>Amount</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                value={choice}
                onChange={(e) => {
                  setChoice(e.currentTarget.value);
                  setShowError(false);
                }}
              >
                {choices.map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          {choice === CUSTOM && (
            <Field.Root invalid={showError && !amount.ok}>
              <Field.Label>Custom amount</Field.Label>
              <InputGroup startElement="$">
                <Input
                  value={custom}
                  inputMode="numeric"
                  placeholder={`Multiples of $${topup.block_dollars}`}
                  autoFocus
                  onChange={(e) => {
                    setCustom(cleanAmountInput(e.currentTarget.value));
                    setShowError(false);
                  }}
                />
              </InputGroup>
              {showError && !amount.ok ? (
                <Field.ErrorText>{amount.message}</Field.ErrorText>
              ) : (
                <Field.HelperText>
                  ${topup.block_dollars} buys {formatCredits(creditsForUsd(topup.block_dollars, topup))} credits.
                </Field.HelperText>
              )}
            </Field.Root>
          )}
          <Text color="fg.muted" data-testid="top-up-credits">
            {amount.ok ? `You get ${formatCredits(amount.credits)} credits.` : 'Enter an amount to see the credits.'}
          </Text>
          <Button type="submit" colorPalette="brand" loading={starting} disabled={!subscribed}>
            {amount.ok ? `Buy ${formatCredits(amount.credits)} credits for $${amount.usd}` : 'Buy credits'}
          </Button>
        </Stack>
      </form>
      <Separator />
      <Stack gap="3">
        <Heading as="h3" size="sm">
          Auto top-up
        </Heading>
        <Text textStyle="sm" color="fg.muted">
          Buys credits with your default card whenever your balance falls below the threshold.
        </Text>
        <AutoTopUpSettings gateway={gateway} account={account} catalog={catalog} notify={notify} />
      </Stack>
      <Separator />
      <SpendingControls gateway={gateway} notify={notify} />
    </Stack>
  );
}

export default TopUpDialog;
