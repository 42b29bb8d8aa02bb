import { Navigate } from '@aim/shared-kit/router';
import { QueryProvider } from '@aim/shared-kit/query';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { InstanceReport } from './instance-report.tsx';
import { ApiKeysRoute } from './routes/api-keys.tsx';
import { TaskLogsRoute } from './routes/task-logs.tsx';

/** Paths below the basename the shell gives ('/dashboard'). */
export const routes: RemoteRoute[] = [
  { path: 'api-keys', element: <ApiKeysRoute /> },
  { path: 'task-logs', element: <TaskLogsRoute /> },
];

export function App({ basename }: RemoteAppProps) {
  return (
    <QueryProvider>
      <InstanceReport name="mfe_developer" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </QueryProvider>
  );
}

export default App;
