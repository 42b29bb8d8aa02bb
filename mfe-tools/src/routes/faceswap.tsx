import { lazy } from 'react';
import { showErrorToast, TOAST_MS } from '@aim/shared-kit/toast';

const notifyError = (message: string) => showErrorToast(message, TOAST_MS.short);

/** /dashboard/tools/faceswap (?taskId=). */
export function FaceswapRoute() {
  return <FaceswapScreen />;
}

// The tool loads with its own chunk when its route first renders (the remote's slot shows its
// spinner meanwhile): it is not on the cold path of the Midjourney page, which shares this remote.
const FaceswapScreen = lazy(async () => {
  const [{ FaceswapTool }, { useFaceswapGateway }] = await Promise.all([
    import('../features/faceswap/faceswap-tool.tsx'),
    import('../features/faceswap/gateway.ts'),
  ]);
  return {
    default: function FaceswapScreen() {
      const gateway = useFaceswapGateway();
      return <FaceswapTool gateway={gateway} notifyError={notifyError} />;
    },
  };
});
