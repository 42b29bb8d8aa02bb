import { showErrorToast, TOAST_MS } from '@aim/shared-kit/toast';
import { FaceswapTool } from '../features/faceswap/faceswap-tool.tsx';
import { useFaceswapGateway } from '../features/faceswap/gateway.ts';

const notifyError = (message: string) => showErrorToast(message, TOAST_MS.short);

/** /dashboard/tools/faceswap (?taskId=). */
export function FaceswapRoute() {
  const gateway = useFaceswapGateway();
  return <FaceswapTool gateway={gateway} notifyError={notifyError} />;
}
