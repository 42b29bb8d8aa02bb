import { Navigate } from 'react-router-dom';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { ScreenPlaceholder } from './components/screen-placeholder.tsx';
import { InstanceReport } from './instance-report.tsx';

/**
 * Paths below the basename the shell gives: '/dashboard' for the billing screens, '/' for the
 * card-setup return page.
 */
export const routes: RemoteRoute[] = [
  { path: 'billing/subscription', element: <ScreenPlaceholder title="Subscription" testId="subscription" /> },
  { path: 'billing/payment-methods', element: <ScreenPlaceholder title="Payment Methods" testId="payment-methods" /> },
  { path: 'billing/invoices', element: <ScreenPlaceholder title="Invoices" testId="invoices" /> },
  { path: 'payment-success', element: <ScreenPlaceholder title="Payment Success" testId="payment-success" /> },
];

export function App({ basename }: RemoteAppProps) {
  return (
    <>
      <InstanceReport name="mfe_billing" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </>
  );
}

export default App;
