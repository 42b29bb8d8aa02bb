import { lazy, Suspense, useState } from 'react';
import { ChakraProvider } from '@aim/shared-kit/ui';
import { Provider as JotaiProvider, createStore } from 'jotai';
import { Navigate, RouterProvider, createBrowserRouter, type RouteObject } from '@aim/shared-kit/router';
import { system } from '@aim/shared-kit/theme';
import { AppToaster } from '@aim/shared-kit/toast';
import { InstanceReport } from './instance-report.tsx';
import { PreviewNotices } from './features/frame/preview-notices.tsx';
import type { PreviewResult } from './mf/preview.ts';
import { RemoteSlot } from './mf/remote-slot.tsx';
import { AuthCallbackRoute } from './routes/auth-callback.tsx';
import { DashboardLayout } from './routes/dashboard-layout.tsx';
import { FullPageLoading } from './routes/full-page-loading.tsx';
import { LandingRoute } from './routes/landing.tsx';
import { RequireSession } from './routes/require-session.tsx';
import { WelcomeRoute } from './routes/welcome.tsx';

// The ALTCHA widget (~35 KiB gzip) is only needed on the sign-in screen.
const LoginRoute = lazy(() => import('./routes/login.tsx'));
// For operators and remote teams, at a URL they know (not in the sidebar): docs/operations/previews-and-deploys.md
const DiagnosticsRoute = lazy(() => import('./routes/diagnostics.tsx'));

const MIDJOURNEY_PATH = '/dashboard/tools/midjourney';

const tools = <RemoteSlot remote="mfe_tools" props={{ basename: '/dashboard' }} />;
const assets = <RemoteSlot remote="mfe_assets" props={{ basename: '/dashboard' }} />;
const billing = <RemoteSlot remote="mfe_billing" props={{ basename: '/dashboard' }} />;
const developer = <RemoteSlot remote="mfe_developer" props={{ basename: '/dashboard' }} />;

/** Spec §2 route table. Screens live in remotes; the shell owns the table, guards and redirects. */
const routes: RouteObject[] = [
  {
    path: '/auth',
    element: (
      <Suspense fallback={<FullPageLoading />}>
        <LoginRoute />
      </Suspense>
    ),
  },
  { path: '/auth/callback', element: <AuthCallbackRoute /> },
  {
    element: <RequireSession />,
    children: [
      { path: '/maybe', element: <LandingRoute /> },
      { path: '/welcome', element: <WelcomeRoute /> },
      { path: '/payment-success', element: <RemoteSlot remote="mfe_billing" props={{ basename: '/' }} /> },
      {
        path: '/dashboard',
        element: <DashboardLayout />,
        children: [
          { index: true, element: tools },
          ...['midjourney', 'ai-photos', 'faceswap', 'bulk-tasks'].map((p) => ({ path: `tools/${p}`, element: tools })),
          ...['images', 'videos', 'audio'].map((p) => ({ path: `assets/${p}`, element: assets })),
          ...['subscription', 'payment-methods', 'invoices'].map((p) => ({ path: `billing/${p}`, element: billing })),
          { path: 'api-keys', element: developer },
          { path: 'task-logs', element: developer },
          {
            path: 'diagnostics',
            element: (
              <Suspense fallback={null}>
                <DiagnosticsRoute />
              </Suspense>
            ),
          },
        ],
      },
    ],
  },
  { path: '*', element: <Navigate to={MIDJOURNEY_PATH} replace /> },
];

const store = createStore();

export function App({ preview }: { preview: PreviewResult }) {
  const [router] = useState(() => createBrowserRouter(routes));
  return (
    <ChakraProvider value={system}>
      <JotaiProvider store={store}>
        <InstanceReport name="shell" />
        <RouterProvider router={router} />
        <PreviewNotices preview={preview} />
        <AppToaster />
      </JotaiProvider>
    </ChakraProvider>
  );
}
