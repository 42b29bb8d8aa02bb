import { Navigate } from '@aim/shared-kit/router';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { InstanceReport } from './instance-report.tsx';
import { WelcomeRoute } from './routes/welcome.tsx';

/** Paths below the basename the shell gives ('/'). */
export const routes: RemoteRoute[] = [{ path: 'welcome', element: <WelcomeRoute /> }];

export function App({ basename }: RemoteAppProps) {
  return (
    <>
      <InstanceReport name="mfe_onboarding" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </>
  );
}

export default App;
