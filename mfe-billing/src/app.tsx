import { Navigate } from '@aim/shared-kit/router';
import { QueryProvider } from '@aim/shared-kit/query';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { InstanceReport } from './instance-report.tsx';
import { PaymentSuccessPage } from './features/payment-success/payment-success-page.tsx';
import { InvoicesRoute, PaymentMethodsRoute, SubscriptionRoute } from './routes/billing-routes.tsx';

/**
 * Paths below the basename the shell gives: '/dashboard' for the billing screens, '/' for the
 * card-setup return page.
 */
export const routes: RemoteRoute[] = [
  { path: 'billing/subscription', element: <SubscriptionRoute /> },
  { path: 'billing/payment-methods', element: <PaymentMethodsRoute /> },
  { path: 'billing/invoices', element: <InvoicesRoute /> },
  { path: 'payment-success', element: <PaymentSuccessPage /> },
];

export function App({ basename }: RemoteAppProps) {
  return (
    <QueryProvider>
      <InstanceReport name="mfe_billing" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </QueryProvider>
  );
}

export default App;
