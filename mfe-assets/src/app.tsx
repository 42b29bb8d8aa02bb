import { Navigate } from '@aim/shared-kit/router';
import { QueryProvider } from '@aim/shared-kit/query';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { InstanceReport } from './instance-report.tsx';
import { ImagesRoute } from './routes/images.tsx';
import { MediaRoute } from './routes/media.tsx';

/** Paths below the basename the shell gives ('/dashboard'). */
export const routes: RemoteRoute[] = [
  { path: 'assets/images', element: <ImagesRoute /> },
  { path: 'assets/videos', element: <MediaRoute kind="videos" /> },
  { path: 'assets/audio', element: <MediaRoute kind="audio" /> },
];

export function App({ basename }: RemoteAppProps) {
  return (
    <QueryProvider>
      <InstanceReport name="mfe_assets" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </QueryProvider>
  );
}

export default App;
