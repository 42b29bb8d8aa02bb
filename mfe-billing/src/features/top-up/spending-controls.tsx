import { useState, type FormEvent } from 'react';
import { Alert, Button, Field, Heading, HStack, Input, InputGroup, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { formatCredits } from '@aim/shared-kit/format';
import { useQuery, useQueryClient } from '@aim/shared-kit/query';
import { serverMessage, type BillingGateway } from '../../gateway/billing-gateway.ts';
import { billingKeys } from '../../gateway/billing-queries.ts';
import type { SpendingLimits } from '../../gateway/spending-limits.ts';
import { TEXTS, type Notices } from '../../notices.ts';
import {
  cleanNumberInput,
  formatUsd,
  formOf,
  parseSpendingForm,
  type SpendingErrors,
  type SpendingField,
  type SpendingForm,
} from './spending-controls-rules.ts';

type Props = { gateway: BillingGateway; notify: Notices };

/**
 * The account's spending controls in the top-up dialog (docs/decisions/0014-spending-controls.md):
 * monthly spending limit, auto top-up charges per day and monthly cap, low-balance email
 * alert, with their defaults and this month's usage, and the last charge a limit refused.
 * Saved through POST /auth/spending-limits; the server enforces them.
 */
export function SpendingControls({ gateway, notify }: Props) {
  const client = useQueryClient();
  const query = useQuery({ queryKey: billingKeys.spendingLimits, queryFn: () => gateway.spendingLimits(), enabled: gateway.ready });
  const limits = query.data;
  const load =
    query.isError && !query.isFetching ? { status: 'error' as const } : limits ? { status: 'ready' as const, limits } : { status: 'loading' as const };
  const retry = () => void query.refetch();

  return (
    <Stack gap="3" data-testid="spending-controls">
      <Heading as="h3" size="sm">
        Spending limits
      </Heading>
      {load.status === 'loading' ? (
        <Stack gap="2" aria-busy="true" data-testid="spending-controls-loading">
          <Skeleton h="8" />
          <Skeleton h="16" />
        </Stack>
      ) : load.status === 'error' ? (
        <Alert.Root status="error" size="sm" data-testid="spending-controls-error">
          <Alert.Indicator />
          <Alert.Title>Spending limits could not be loaded.</Alert.Title>
          <Button size="xs" variant="outline" onClick={retry}>
            Retry
          </Button>
        </Alert.Root>
      ) : (
        <SpendingLimitsForm
          gateway={gateway}
          notify={notify}
          limits={load.limits}
          onSaved={(limits) => client.setQueryData(billingKeys.spendingLimits, limits)}
        />
      )}
    </Stack>
  );
}

type FormProps = Props & { limits: SpendingLimits; onSaved: (limits: SpendingLimits) => void };

function SpendingLimitsForm({ gateway, notify, limits, onSaved }: FormProps) {
  const [form, setForm] = useState<SpendingForm>(() => formOf(limits));
  const [errors, setErrors] = useState<SpendingErrors>({});
  const [state, setState] = useState<'idle' | 'saving' | 'saved'>('idle');
  const { usage, defaults, last_refusal: refused } = limits;

  function change(field: SpendingField, value: string) {
    setForm((f) => ({ ...f, [field]: cleanNumberInput(value) }));
    setErrors((e) => ({ ...e, [field]: undefined }));
    setState((s) => (s === 'saved' ? 'idle' : s));
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    const parsed = parseSpendingForm(form);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setState('saving');
    try {
      const saved = await gateway.saveSpendingLimits(parsed.input);
      setForm(formOf(saved));
      setState('saved');
      onSaved(saved);
    } catch (err) {
      setState('idle');
      notify.error(TEXTS.failedToSaveSettings, serverMessage(err));
    }
  }

  const field = (name: SpendingField, label: string, helper: string, opts: { prefix?: string; placeholder?: string } = {}) => (
    <Field.Root flex="1" minW="48" invalid={!!errors[name]}>
      <Field.Label>{label}</Field.Label>
      {opts.prefix ? (
        <InputGroup startElement={opts.prefix}>
          <Input size="sm" value={form[name]} inputMode="numeric" placeholder={opts.placeholder} onChange={(e) => change(name, e.currentTarget.value)} />
        </InputGroup>
      ) : (
        <Input size="sm" value={form[name]} inputMode="numeric" placeholder={opts.placeholder} onChange={(e) => change(name, e.currentTarget.value)} />
      )}
      {errors[name] ? <Field.ErrorText>{errors[name]}</Field.ErrorText> : <Field.HelperText>{helper}</Field.HelperText>}
    </Field.Root>
  );

  return (
    <form onSubmit={save} noValidate>
      <Stack gap="3">
        {refused.auto_topup && (
          <Alert.Root status="warning" size="sm" data-testid="auto-top-up-refused">
            <Alert.Indicator />
            <Alert.Title>Last auto top-up refused: {refused.auto_topup.message}</Alert.Title>
          </Alert.Root>
        )}
        {refused.topup && (
          <Alert.Root status="info" size="sm" data-testid="top-up-refused">
            <Alert.Indicator />
            <Alert.Title>Last top-up refused: {refused.topup.message}</Alert.Title>
          </Alert.Root>
        )}
        <Text textStyle="sm" color="fg.muted">
          Top-ups and auto top-ups are counted per calendar month (UTC), including payments still pending.
        </Text>
        <HStack gap="3" align="flex-start" wrap="wrap">
          {field('monthly_spend_limit', 'Monthly spending limit', `Default: no limit. ${formatUsd(usage.month_spend)} used this month.`, {
            prefix: '$',
            placeholder: 'No limit',
          })}
          {field('low_balance_alert_at', 'Email me when credits fall below', 'Default: off. One email per drop below it.', { placeholder: 'Off' })}
        </HStack>
        <HStack gap="3" align="flex-start" wrap="wrap">
          {field('auto_topup_max_per_day', 'Auto top-ups per day', `Default: ${defaults.auto_topup_max_per_day}. ${usage.auto_topups_today} today.`)}
          {field(
            'auto_topup_monthly_cap',
            'Auto top-up monthly cap',
            `Default: ${formatUsd(defaults.auto_topup_monthly_cap)}. ${formatUsd(usage.auto_topup_month)} this month.`,
            { prefix: '$' },
          )}
        </HStack>
        <HStack gap="3">
          <Button type="submit" size="sm" variant="outline" loading={state === 'saving'}>
            Save limits
          </Button>
          {state === 'saved' && (
            <Text textStyle="sm" color="fg.success" role="status" data-testid="spending-controls-saved">
              Limits saved.
            </Text>
          )}
        </HStack>
        {limits.low_balance_alert_at !== null && (
          <Text textStyle="xs" color="fg.muted" data-testid="low-balance-alert-on">
            Alert on: below {formatCredits(limits.low_balance_alert_at)} credits.
          </Text>
        )}
      </Stack>
    </form>
  );
}
