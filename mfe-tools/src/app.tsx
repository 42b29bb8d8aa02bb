import { Navigate } from 'react-router-dom';
import { Heading } from '@chakra-ui/react';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { ScreenPlaceholder } from './components/screen-placeholder.tsx';
import { InstanceReport } from './instance-report.tsx';
import { FaceswapRoute } from './routes/faceswap.tsx';
import { MidjourneyRoute } from './routes/midjourney.tsx';

/** Paths below the basename the shell gives ('/dashboard'); the index is the Midjourney tool too. */
export const routes: RemoteRoute[] = [
  { index: true, element: <MidjourneyRoute /> },
  { path: 'tools/midjourney', element: <MidjourneyRoute /> },
  { path: 'tools/ai-photos', element: <ScreenPlaceholder title="AI Photos" testId="ai-photos" /> },
  { path: 'tools/faceswap', element: <FaceswapRoute /> },
  {
    path: 'tools/bulk-tasks',
    element: (
      <Heading as="h1" size="xl" data-testid="screen-bulk-tasks">
        Bulk Tasks (In Maintenance)
      </Heading>
    ),
  },
];

export function App({ basename }: RemoteAppProps) {
  return (
    <>
      <InstanceReport name="mfe_tools" />
      <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
    </>
  );
}

export default App;
