import { Navigate } from 'react-router-dom';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { ScreenPlaceholder } from './components/screen-placeholder.tsx';
import { InstanceReport } from './instance-report.tsx';

/** Paths below the basename the shell gives ('/'). */
export const routes: RemoteRoute[] = [{ path: 'welcome', element: <ScreenPlaceholder title="Welcome" testId="welcome" /> }];

export function App({ basename }: RemoteAppProps) {
  return (
    <>
      <InstanceReport name="mfe_onboarding" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </>
  );
}

export default App;
