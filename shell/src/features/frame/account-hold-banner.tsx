import { useEffect, useState } from 'react';
import { Alert, Link } from '@aim/shared-kit/ui';
import { Link as RouterLink } from '@aim/shared-kit/router';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { type AccountHold, accountHoldOf, PAYMENT_METHODS_PATH, SUBSCRIPTION_PATH } from './account-hold.ts';

/**
 * Why the account is held (docs/decisions/0012-money-events.md): an open dispute or a negative
 * balance refuses new tasks; a past-due renewal pauses auto top-up and top-ups. Loaded lazily by
 * the dashboard frame, so it costs nothing before the first render. Reads the user's own rows
 * (RLS): mdusers through the shared row (credits, live), billing_money_events and
 * billing_subscriptions once per change of balance or plan.
 */

async function loadHold(userId: string, credits: number): Promise<AccountHold | null> {
  const supabase = getSupabaseClient();
  const [disputes, subscription] = await Promise.all([
    supabase.from('billing_money_events').select('id').eq('user_id', userId).eq('kind', 'dispute').eq('status', 'open').limit(1),
    supabase.from('billing_subscriptions').select('status').eq('user_id', userId).maybeSingle(),
  ]);
  return accountHoldOf({
    openDispute: Boolean(disputes.data?.length),
    credits,
    subscriptionStatus: (subscription.data as { status?: string } | null)?.status,
  });
}

function AccountHoldBanner() {
  const { row } = useUserRow();
  const [hold, setHold] = useState<AccountHold | null>(null);
  const userId = row?.id ?? null;
  const credits = row?.credits ?? 0;
  const plan = row?.plan ?? null;
  const nextBilling = row?.next_billing_date ?? null;

  // plan and next billing date are re-read triggers: a renewal, paid or failed, changes them
  useEffect(() => {
    if (!userId) return;
    let live = true;
    loadHold(userId, credits)
      .then((next) => live && setHold(next))
      .catch(() => live && setHold(credits < 0 ? 'negative_balance' : null));
    return () => {
      live = false;
    };
  }, [userId, credits, plan, nextBilling]);

  if (!hold) return null;
  return (
    <Alert.Root status={hold === 'past_due' ? 'warning' : 'error'} borderRadius="0" data-testid="account-hold-banner" data-hold={hold}>
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Description>
          {hold === 'dispute' && 'Your account is on hold: a payment was disputed. Contact support or resolve the dispute to continue.'}
          {hold === 'negative_balance' && (
            <>
              Your balance is negative after a refund.{' '}
              <Link asChild textDecoration="underline">
                <RouterLink to={SUBSCRIPTION_PATH}>Buy credits</RouterLink>
              </Link>{' '}
              to continue.
            </>
          )}
          {hold === 'past_due' && (
            <>
              Your last renewal payment failed.{' '}
              <Link asChild textDecoration="underline">
                <RouterLink to={PAYMENT_METHODS_PATH}>Update your card</RouterLink>
              </Link>{' '}
              to keep your plan.
            </>
          )}
        </Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );
}

export default AccountHoldBanner;
