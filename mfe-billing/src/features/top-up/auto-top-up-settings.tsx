import { useState, type FormEvent } from 'react';
import { Alert, Button, Field, HStack, Input, InputGroup, NativeSelect, Stack, Switch, Text } from '@aim/shared-kit/ui';
import { AUTO_TOP_UP_MAX_FAILURES } from '@aim/shared-kit/domain';
import { formatCredits } from '@aim/shared-kit/format';
import type { BillingAccount } from '../../gateway/account.ts';
import { serverMessage, type BillingConfig, type BillingGateway } from '../../gateway/billing-gateway.ts';
import { TEXTS, type Notices } from '../../notices.ts';
import { cleanAmountInput, creditsForUsd, parseCustomAmount } from './top-up-rules.ts';
import { useActionKey } from '../../gateway/action-key.ts';

type Props = { gateway: BillingGateway; account: BillingAccount; catalog: Pick<BillingConfig, 'topup' | 'auto_topup'>; notify: Notices };

/** Spec §9: buy credits with the default card when the balance falls below a threshold (thresholds and defaults from the catalog). */
export function AutoTopUpSettings({ gateway, account, catalog, notify }: Props) {
  const { topup, auto_topup: limits } = catalog;
  const [enabled, setEnabled] = useState(account.auto_topup);
  const [threshold, setThreshold] = useState(String(account.auto_topup_min ?? limits.default_min));
  const [amount, setAmount] = useState(String(account.auto_topup_amount ?? limits.default_amount));
  const [amountError, setAmountError] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'saving' | 'saved'>('idle');
  const actionKey = useActionKey();

  async function save(event: FormEvent) {
    event.preventDefault();
    const parsed = parseCustomAmount(amount, topup);
    if (!parsed.ok) {
      setAmountError(parsed.message);
      return;
    }
    setState('saving');
    try {
      const input = { auto_topup: enabled, auto_topup_min: Number(threshold), auto_topup_amount: parsed.usd };
      // turning auto top-up on may charge at once (a balance already under the threshold)
      await gateway.saveAutoTopUp(input, actionKey.keyFor(JSON.stringify(input)));
      actionKey.done();
      setState('saved');
    } catch (err) {
      setState('idle');
      notify.error(TEXTS.failedToSaveSettings, serverMessage(err));
    }
  }

  const touched = () => setState((s) => (s === 'saved' ? 'idle' : s));
  const parsed = parseCustomAmount(amount, topup);
  // a saved threshold the catalog no longer offers stays shown as what is saved (not silently the first option)
  const thresholds = limits.thresholds.includes(Number(threshold)) ? limits.thresholds : [...limits.thresholds, Number(threshold)].sort((a, b) => a - b);

  return (
    <form onSubmit={save} data-testid="auto-top-up">
      <Stack gap="3">
        <Switch.Root
          checked={enabled}
          onCheckedChange={(e) => {
            setEnabled(e.checked);
            touched();
          }}
          colorPalette="brand"
        >
          <Switch.HiddenInput />
          <Switch.Control />
          <Switch.Label>Auto top-up</Switch.Label>
        </Switch.Root>
        {account.auto_topup_disabled_reason && !account.auto_topup && (
          <Alert.Root status="warning" size="sm" data-testid="auto-top-up-disabled">
            <Alert.Indicator />
            <Alert.Title>{account.auto_topup_disabled_reason}</Alert.Title>
          </Alert.Root>
        )}
        {account.auto_topup && (account.auto_topup_failures ?? 0) > 0 && (
          <Alert.Root status="info" size="sm" data-testid="auto-top-up-failing">
            <Alert.Indicator />
            <Alert.Title>{failingMessage(account.auto_topup_failures ?? 0)}</Alert.Title>
          </Alert.Root>
        )}
        <HStack gap="3" align="flex-start" wrap="wrap">
          <Field.Root flex="1" minW="40">
            <Field.Label>When credits fall below</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field
                value={threshold}
                onChange={(e) => {
                  setThreshold(e.currentTarget.value);
                  touched();
                }}
              >
                {thresholds.map((t) => (
                  <option key={t} value={t}>
                    {formatCredits(t)} credits
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Field.Root flex="1" minW="40" invalid={!!amountError}>
            <Field.Label>Top up with</Field.Label>
            <InputGroup startElement="$">
              <Input
                size="sm"
                value={amount}
                inputMode="numeric"
                onChange={(e) => {
                  setAmount(cleanAmountInput(e.currentTarget.value));
                  setAmountError(null);
                  touched();
                }}
              />
            </InputGroup>
            {amountError ? (
              <Field.ErrorText>{amountError}</Field.ErrorText>
            ) : (
              <Field.HelperText>
                {parsed.ok
                  ? `${formatCredits(creditsForUsd(parsed.usd, topup))} credits, in $${topup.block_dollars} blocks`
                  : `In $${topup.block_dollars} blocks`}
              </Field.HelperText>
            )}
          </Field.Root>
        </HStack>
        <HStack gap="3">
          <Button type="submit" size="sm" variant="outline" loading={state === 'saving'}>
            Save settings
          </Button>
          {state === 'saved' && (
            <Text textStyle="sm" color="fg.success" role="status" data-testid="auto-top-up-saved">
              Settings saved.
            </Text>
          )}
        </HStack>
      </Stack>
    </form>
  );
}

/** Auto top-up is still on but its last payments failed: how many, and when it turns itself off. */
function failingMessage(failures: number): string {
  const left = AUTO_TOP_UP_MAX_FAILURES - failures;
  const last = failures === 1 ? 'The last auto top-up payment failed' : `The last ${failures} auto top-up payments failed`;
  return left > 0
    ? `${last}. It turns off after ${AUTO_TOP_UP_MAX_FAILURES} failures in a row: check your default card under Payment Methods.`
    : `${last}. Check your default card under Payment Methods.`;
}
