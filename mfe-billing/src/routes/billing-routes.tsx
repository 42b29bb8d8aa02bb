// Thin screens: the signed-in user's gateway and live row, handed to the features.
import { useUserRow } from '@aim/shared-kit/session';
import { useActivityGateway } from '../features/activity/activity-gateway.ts';
import { useBillingGateway } from '../gateway/billing-gateway.ts';
import { useEnsureCustomer } from '../gateway/ensure-customer.ts';
import { notices } from '../notices.ts';
import { InvoicesPage } from '../features/invoices/invoices-page.tsx';
import { PaymentMethodsPage } from '../features/payment-methods/payment-methods-page.tsx';
import { SubscriptionPage } from '../features/subscription/subscription-page.tsx';

function useBillingScreen() {
  const gateway = useBillingGateway();
  const { row, status } = useUserRow();
  useEnsureCustomer(gateway, row);
  return { gateway, row, status };
}

/** /dashboard/billing/subscription */
export function SubscriptionRoute() {
  const { gateway, row, status } = useBillingScreen();
  const activity = useActivityGateway();
  return <SubscriptionPage gateway={gateway} account={row} status={status} notify={notices} activity={activity} />;
}

/** /dashboard/billing/payment-methods */
export function PaymentMethodsRoute() {
  const { gateway } = useBillingScreen();
  return <PaymentMethodsPage gateway={gateway} notify={notices} />;
}

/** /dashboard/billing/invoices */
export function InvoicesRoute() {
  const { gateway, row } = useBillingScreen();
  return <InvoicesPage gateway={gateway} email={row?.email ?? null} notify={notices} />;
}
