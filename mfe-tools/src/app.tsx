import { Navigate } from '@aim/shared-kit/router';
import { Heading } from '@aim/shared-kit/ui';
import { RemoteRoutes, type RemoteAppProps, type RemoteRoute } from '@aim/shared-kit/remote';
import { ApiActionPricesProvider } from './features/pricing/action-prices.tsx';
import { ApiQueuePositionProvider } from './features/tasks/use-queue-position.tsx';
import { InstanceReport } from './instance-report.tsx';
import { AiPhotosRoute } from './routes/ai-photos.tsx';
import { FaceswapRoute } from './routes/faceswap.tsx';
import { MidjourneyRoute } from './routes/midjourney.tsx';

/** Paths below the basename the shell gives ('/dashboard'); the index is the Midjourney tool too. */
export const routes: RemoteRoute[] = [
  { index: true, element: <MidjourneyRoute /> },
  { path: 'tools/midjourney', element: <MidjourneyRoute /> },
  { path: 'tools/ai-photos', element: <AiPhotosRoute /> },
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
      <ApiQueuePositionProvider>
        <ApiActionPricesProvider>
          <RemoteRoutes basename={basename} routes={routes} fallback={<Navigate to="/dashboard/tools/midjourney" replace />} />
        </ApiActionPricesProvider>
      </ApiQueuePositionProvider>
    </>
  );
}

export default App;
