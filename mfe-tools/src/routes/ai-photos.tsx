import { lazy } from 'react';
import { showErrorToast, TOAST_MS } from '@aim/shared-kit/toast';

const notifyError = (message: string) => showErrorToast(message, TOAST_MS.short);

/** /dashboard/tools/ai-photos (?taskId=). */
export function AiPhotosRoute() {
  return <AiPhotosScreen />;
}

// The tool loads with its own chunk when its route first renders (the remote's slot shows its
// spinner meanwhile): it is not on the cold path of the Midjourney page, which shares this remote.
const AiPhotosScreen = lazy(async () => {
  const [{ AiPhotosTool }, { useAiPhotosGateway }] = await Promise.all([
    import('../features/ai-photos/ai-photos-tool.tsx'),
    import('../features/ai-photos/gateway.ts'),
  ]);
  return {
    default: function AiPhotosScreen() {
      const gateway = useAiPhotosGateway();
      return <AiPhotosTool gateway={gateway} notifyError={notifyError} />;
    },
  };
});
